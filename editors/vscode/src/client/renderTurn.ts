// HTML of one turn of the chat: prompt, attachments, plan, reasoning, answers,
// tool cards with their approvals and live output, the files the turn changed and
// the undo. Every piece of server or model text is escaped.
import { allowRuleLabel } from "./heldRule";
import { parseEditSummary } from "./proposedEdit";
import { escapeHtml, escapeText } from "./escape";
import { renderMarkdown } from "./markdown";
import { INTERRUPTED, type ContextRef, type Decision, type PlanStatus, type PlanStep } from "./protocol";
import type { ApprovalView, Block, TextBlock, ToolBlock, ToolStatus, TurnEntry } from "./state";

/** Tool output longer than this is cut in the card (the full text stays in the state). */
export const MAX_RENDERED_OUTPUT_CHARS = 20_000;

const STATUS_LABEL: Record<ToolStatus, string> = {
  proposed: "proposed",
  "awaiting-approval": "waiting for approval",
  approved: "approved",
  denied: "denied",
  running: "running",
  succeeded: "done",
  failed: "failed",
  abandoned: "abandoned",
};

const DECISION_LABEL: Record<Decision, string> = {
  approve: "approved",
  deny: "denied",
  "approve-session": "approved for this session",
};

/**
 * Classes each line of a unified diff by its first character. The lines are
 * inline spans separated by the newlines of the <pre>, so a copy keeps the lines
 * and nothing is spaced twice.
 */
export function renderDiff(diff: string): string {
  const lines = diff.replace(/\n$/, "").split("\n");
  const out = lines.map((line) => {
    let cls = "ctx";
    if (line.startsWith("+++") || line.startsWith("---")) cls = "meta";
    else if (line.startsWith("@@")) cls = "hunk";
    else if (line.startsWith("+")) cls = "add";
    else if (line.startsWith("-")) cls = "del";
    return `<span class="diff-${cls}">${escapeText(line)}</span>`;
  });
  return `<pre class="diff">${out.join("\n")}</pre>`;
}

/** An approval summary: free text, and the unified diff when it holds one. */
export function renderSummary(summary: string): string {
  const at = summary.search(/^(--- |diff |@@ )/m);
  if (at < 0) return `<pre class="summary">${escapeText(summary)}</pre>`;
  const head = summary.slice(0, at).trim();
  return (head ? `<pre class="summary">${escapeText(head)}</pre>` : "") + renderDiff(summary.slice(at));
}

function prettyArguments(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args), null, 2);
  } catch {
    return args;
  }
}

function approvalButtons(a: ApprovalView): string {
  const id = escapeHtml(a.approvalId);
  const rule = a.suggestedRule
    ? `<button class="allow-rule secondary" data-action="allow-rule" data-approval-id="${id}">${escapeText(allowRuleLabel(a))}</button>`
    : "";
  // An edit also opens in VS Code's diff editor (approvalDiff.ts).
  const reviewEdit = parseEditSummary(a.summary.split(" ", 1)[0], a.summary) !== undefined
    ? `<button class="open-diff secondary" data-action="review-edit" data-approval-id="${id}">Open Diff</button>`
    : "";
  return (
    `<div class="approval-buttons">` +
    `<button class="approve" data-action="approve" data-approval-id="${id}">Approve</button>` +
    `<button class="deny secondary" data-action="deny" data-approval-id="${id}">Deny</button>` +
    `<button class="approve-session secondary" data-action="approve-session" data-approval-id="${id}">Approve for session</button>` +
    reviewEdit +
    rule +
    `</div>`
  );
}

export function renderApproval(a: ApprovalView, pending: boolean): string {
  const state = pending ? "pending" : a.decision ? DECISION_LABEL[a.decision] : "closed";
  return (
    `<div class="approval" data-approval-id="${escapeHtml(a.approvalId)}" data-state="${escapeHtml(state)}">` +
    `<div class="approval-head"><span class="risk risk-${escapeHtml(a.risk)}">${escapeText(a.risk)}</span> ` +
    `<span class="approval-state">${pending ? "Approval needed" : escapeHtml(state)}</span></div>` +
    renderSummary(a.summary) +
    (a.notice ? `<div class="approval-notice">${escapeText(a.notice)}</div>` : "") +
    (pending ? approvalButtons(a) : "") +
    `</div>`
  );
}

function renderLive(b: ToolBlock): string {
  if (b.live === undefined) return "";
  const dropped = b.liveDropped ? `<div class="truncated">… ${b.liveDropped} earlier characters not shown</div>` : "";
  return `<div class="tool-section">Output so far</div>${dropped}<pre class="tool-output tool-live">${escapeText(b.live)}</pre>`;
}

function renderTool(b: ToolBlock, pendingIds: Set<string>): string {
  const pending = b.approval !== undefined && pendingIds.has(b.approval.approvalId);
  // Open while it waits for an answer or prints: that is what the user wants to see.
  const open = pending || (b.status === "running" && b.live !== undefined) ? " open" : "";
  let output = "";
  if (b.output !== undefined) {
    const cut = b.output.length > MAX_RENDERED_OUTPUT_CHARS;
    const text = cut ? b.output.slice(0, MAX_RENDERED_OUTPUT_CHARS) : b.output;
    const note = b.truncated || cut ? `<div class="truncated">output truncated</div>` : "";
    output = `<div class="tool-section">Output</div><pre class="tool-output">${escapeText(text)}</pre>${note}`;
  }
  return (
    `<details class="tool" data-call-id="${escapeHtml(b.callId)}" data-status="${b.status}"${open}>` +
    `<summary><span class="tool-name">${escapeText(b.name)}</span> ` +
    `<span class="tool-status status-${b.status}">${STATUS_LABEL[b.status]}</span></summary>` +
    `<div class="tool-section">Arguments</div><pre class="tool-args">${escapeText(prettyArguments(b.arguments))}</pre>` +
    (b.approval ? renderApproval(b.approval, pending) : "") +
    renderLive(b) +
    output +
    `</details>`
  );
}

/** HTML of finished messages by their (immutable) block: a running turn re-renders its earlier messages often. */
const doneTexts = new WeakMap<TextBlock, string>();

function renderText(b: TextBlock): string {
  const cached = b.done ? doneTexts.get(b) : undefined;
  if (cached !== undefined) return cached;
  const html =
    `<div class="assistant markdown${b.done ? "" : " streaming"}">${renderMarkdown(b.text)}</div>` +
    (b.interrupted ? `<div class="cut-off">response cut off</div>` : "");
  if (b.done) doneTexts.set(b, html);
  return html;
}

function renderBlock(b: Block, pendingIds: Set<string>, foldId: string): string {
  switch (b.kind) {
    case "text":
      return renderText(b);
    case "tool":
      return renderTool(b, pendingIds);
    case "notice":
      return `<div class="notice notice-${b.level}">${escapeText(b.text)}</div>`;
    case "reasoning":
      return (
        `<details class="reasoning" data-fold-id="${escapeHtml(foldId)}"><summary>Thinking</summary>` +
        `<div class="reasoning-text">${escapeText(b.text)}</div></details>`
      );
    case "steer":
      return `<div class="prompt steer"><span class="steer-label">Steered:</span> ${escapeText(b.prompt)}</div>`;
  }
}

/** "name:3" or "name:3-7" (1-based lines; a range ending at column 0 ends on the line before). */
export function attachmentLabel(c: ContextRef): string {
  const tail = c.uri.replace(/[?#].*$/, "").replace(/\/+$/, "").split("/").pop() || c.uri;
  let name = tail;
  try {
    name = decodeURIComponent(tail);
  } catch {
    // not percent-encoded: keep it as it is
  }
  if (!c.range) return name;
  const first = c.range.start.line + 1;
  const endsAtLineStart = c.range.end.character === 0 && c.range.end.line > c.range.start.line;
  const last = endsAtLineStart ? c.range.end.line : c.range.end.line + 1;
  return last > first ? `${name}:${first}-${last}` : `${name}:${first}`;
}

function renderContext(context: ContextRef[] | undefined): string {
  if (!context?.length) return "";
  const items = context.map((c) => `<span class="attachment" title="${escapeHtml(c.uri)}">${escapeText(attachmentLabel(c))}</span>`);
  return `<div class="context">${items.join(" ")}</div>`;
}

const PLAN_MARK: Record<PlanStatus, string> = { pending: "☐", in_progress: "◐", completed: "☑" };
const PLAN_LABEL: Record<PlanStatus, string> = { pending: "to do", in_progress: "in progress", completed: "done" };

function renderPlan(steps: PlanStep[] | undefined): string {
  if (!steps?.length) return "";
  const items = steps.map((s) => {
    const status = PLAN_MARK[s.status] ? s.status : "pending";
    return (
      `<li class="plan-step" data-status="${escapeHtml(status)}"><span class="plan-mark" aria-hidden="true">${PLAN_MARK[status]}</span> ` +
      `${escapeText(s.step)}<span class="sr-only"> (${PLAN_LABEL[status]})</span></li>`
    );
  });
  const done = steps.filter((s) => s.status === "completed").length;
  return `<div class="plan"><div class="plan-head">Plan · ${done}/${steps.length} done</div><ul class="plan-steps">${items.join("")}</ul></div>`;
}

function renderChanges(t: TurnEntry): string {
  if (!t.changes?.length) return "";
  const id = escapeHtml(t.turnId);
  const n = t.changes.length;
  const files = t.changes.map(
    (f) =>
      `<li><button class="link" data-action="open-diff" data-turn-id="${id}" data-path="${escapeHtml(f.path)}" ` +
      `aria-label="Open the diff of ${escapeHtml(f.path)}">${escapeText(f.path)}</button> ` +
      `<span class="added">+${f.added}</span> <span class="removed">−${f.removed}</span></li>`,
  );
  const undo =
    t.reverted || t.status === "running"
      ? ""
      : `<button class="secondary" data-action="undo-turn" data-turn-id="${id}">Undo this turn</button>`;
  return (
    `<div class="changes"><div class="changes-head">${n} file${n === 1 ? "" : "s"} changed${t.reverted ? " (reverted)" : ""}</div>` +
    `<ul class="changed-files">${files.join("")}</ul>${undo}</div>`
  );
}

function renderConflicts(t: TurnEntry): string {
  if (!t.revertConflicts?.length || t.reverted) return "";
  const items = t.revertConflicts.map(
    (c) =>
      `<li><span class="conflict-path">${escapeText(c.path)}</span>` +
      `<details class="conflict-diff"><summary>changes since the turn</summary>${renderDiff(c.diff)}</details></li>`,
  );
  return (
    `<div class="revert-conflicts" role="alert"><div>Not undone: these files changed after the turn.</div>` +
    `<ul>${items.join("")}</ul>` +
    `<button class="deny" data-action="revert-force" data-turn-id="${escapeHtml(t.turnId)}">Revert anyway</button></div>`
  );
}

function renderFooter(t: TurnEntry): string {
  if (t.status === "completed" && t.usage) {
    return (
      `<div class="usage">${t.usage.inputTokens} in · ${t.usage.outputTokens} out tokens` +
      (t.steps !== undefined ? ` · ${t.steps} step${t.steps === 1 ? "" : "s"}` : "") +
      `</div>`
    );
  }
  if (t.status === "cancelled") return `<div class="notice notice-warning">Turn cancelled.</div>`;
  if (t.status === "failed" && t.failure?.code === INTERRUPTED) {
    return `<div class="notice notice-warning interrupted">Turn interrupted by a restart: ${escapeText(t.failure.message)}</div>`;
  }
  if (t.status === "failed" && t.failure) {
    return `<div class="notice notice-error">Turn failed (${escapeText(t.failure.code)}): ${escapeText(t.failure.message)}</div>`;
  }
  if (t.status === "unknown") return `<div class="notice notice-warning">This turn's end was not received.</div>`;
  return "";
}

/**
 * HTML of ended turns by their (immutable) state: the chat re-renders while text
 * streams, and the long answers of earlier turns need not be rendered again.
 */
const endedTurns = new WeakMap<TurnEntry, string>();

export function renderTurn(t: TurnEntry, pendingIds: Set<string>): string {
  // An ended turn has no pending approval, so its HTML depends on the entry alone.
  if (t.status === "running") return renderTurnNow(t, pendingIds);
  let html = endedTurns.get(t);
  if (html === undefined) endedTurns.set(t, (html = renderTurnNow(t, pendingIds)));
  return html;
}

function renderTurnNow(t: TurnEntry, pendingIds: Set<string>): string {
  const prompt = (t.prompt !== undefined ? `<div class="prompt">${escapeText(t.prompt)}</div>` : "") + renderContext(t.context);
  const blocks = t.blocks.map((b, i) => renderBlock(b, pendingIds, `${t.turnId}#${i}`)).join("");
  const reverted = t.reverted ? `<div class="reverted-mark">This turn was undone.</div>` : "";
  return (
    `<section class="turn${t.reverted ? " reverted" : ""}" data-turn-id="${escapeHtml(t.turnId)}" data-status="${t.status}"` +
    `${t.reverted ? ` data-reverted="true"` : ""} aria-label="Turn">` +
    `${prompt}${reverted}${renderPlan(t.plan)}${blocks}${renderFooter(t)}${renderChanges(t)}${renderConflicts(t)}</section>`
  );
}
