// HTML of the chat view, rendered from a SessionState. Pure string building with
// every piece of server or model text escaped; Markdown goes through markdown-it
// with raw HTML disabled, so a model cannot inject markup into the webview.
import MarkdownIt from "markdown-it";
import { parseEditSummary } from "./proposedEdit";
import { INTERRUPTED, type ApprovalRequested, type ContextRef, type Decision } from "./protocol";
import { revealHidden } from "./revealHidden";
import type { ApprovalView, Block, SessionState, ToolBlock, ToolStatus, TurnEntry } from "./state";

const md = new MarkdownIt({ html: false, linkify: true, breaks: false });

/** Tool output longer than this is cut in the card (the full text stays in the state). */
export const MAX_RENDERED_OUTPUT_CHARS = 20_000;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** Text shown in the chat: its hidden characters revealed, then HTML-escaped. Attributes use escapeHtml. */
export function escapeText(text: string): string {
  return escapeHtml(revealHidden(text));
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function renderMarkdown(text: string): string {
  return md.render(revealHidden(text));
}

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

/** Classes each line of a unified diff by its first character. */
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

function approvalButtons(approvalId: string, diffable: boolean): string {
  const id = escapeHtml(approvalId);
  // An edit also opens in VS Code's diff editor (approvalDiff.ts).
  const diff = diffable ? `<button class="open-diff secondary" data-action="open-diff" data-approval-id="${id}">Open Diff</button>` : "";
  return (
    `<div class="approval-buttons">` +
    `<button class="approve" data-action="approve" data-approval-id="${id}">Approve</button>` +
    `<button class="deny secondary" data-action="deny" data-approval-id="${id}">Deny</button>` +
    `<button class="approve-session secondary" data-action="approve-session" data-approval-id="${id}">Approve for session</button>` +
    diff +
    `</div>`
  );
}

function renderApproval(a: ApprovalView, pending: boolean): string {
  const state = pending ? "pending" : a.decision ? DECISION_LABEL[a.decision] : "closed";
  return (
    `<div class="approval" data-approval-id="${escapeHtml(a.approvalId)}" data-state="${escapeHtml(state)}">` +
    `<div class="approval-head"><span class="risk risk-${escapeHtml(a.risk)}">${escapeText(a.risk)}</span> ` +
    `<span class="approval-state">${pending ? "Approval needed" : escapeHtml(state)}</span></div>` +
    renderSummary(a.summary) +
    (pending ? approvalButtons(a.approvalId, parseEditSummary(a.summary.split(" ", 1)[0], a.summary) !== undefined) : "") +
    `</div>`
  );
}

function renderTool(b: ToolBlock, pendingIds: Set<string>): string {
  const pending = b.approval !== undefined && pendingIds.has(b.approval.approvalId);
  const open = pending ? " open" : "";
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
    output +
    `</details>`
  );
}

function renderBlock(b: Block, pendingIds: Set<string>): string {
  switch (b.kind) {
    case "text":
      return (
        `<div class="assistant markdown${b.done ? "" : " streaming"}">${renderMarkdown(b.text)}</div>` +
        (b.interrupted ? `<div class="cut-off">response cut off</div>` : "")
      );
    case "tool":
      return renderTool(b, pendingIds);
    case "notice":
      return `<div class="notice notice-${b.level}">${escapeText(b.text)}</div>`;
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

function renderTurn(t: TurnEntry, pendingIds: Set<string>): string {
  const prompt = (t.prompt !== undefined ? `<div class="prompt">${escapeText(t.prompt)}</div>` : "") + renderContext(t.context);
  const blocks = t.blocks.map((b) => renderBlock(b, pendingIds)).join("");
  let footer = "";
  if (t.status === "completed" && t.usage) {
    footer = `<div class="usage">${t.usage.inputTokens} in · ${t.usage.outputTokens} out tokens` +
      (t.steps !== undefined ? ` · ${t.steps} step${t.steps === 1 ? "" : "s"}` : "") + `</div>`;
  } else if (t.status === "cancelled") {
    footer = `<div class="notice notice-warning">Turn cancelled.</div>`;
  } else if (t.status === "failed" && t.failure?.code === INTERRUPTED) {
    footer = `<div class="notice notice-warning interrupted">Turn interrupted by a restart: ${escapeText(t.failure.message)}</div>`;
  } else if (t.status === "failed" && t.failure) {
    footer = `<div class="notice notice-error">Turn failed (${escapeText(t.failure.code)}): ${escapeText(t.failure.message)}</div>`;
  } else if (t.status === "unknown") {
    footer = `<div class="notice notice-warning">This turn's end was not received.</div>`;
  }
  return `<section class="turn" data-turn-id="${escapeHtml(t.turnId)}" data-status="${t.status}">${prompt}${blocks}${footer}</section>`;
}

function statusText(state: SessionState): string {
  if (state.closed) return "closed";
  if (state.approvals.length) return "waiting for approval";
  return state.status;
}

function renderHeader(state: SessionState): string {
  const queued = state.queue.entries.length;
  const parts = [
    state.title ? `<span class="title">${escapeText(state.title)}</span>` : "",
    `<span class="status" data-status="${escapeHtml(statusText(state))}">${escapeHtml(statusText(state))}</span>`,
    state.model ? `<span class="model">${escapeText(state.model)}</span>` : "",
    queued ? `<span class="queued">${queued} queued${state.queue.paused ? " (paused)" : ""}</span>` : state.queue.paused ? `<span class="queued">queue paused</span>` : "",
    state.lastUsage ? `<span class="last-usage">last turn: ${state.lastUsage.inputTokens} in · ${state.lastUsage.outputTokens} out</span>` : "",
  ].filter(Boolean);
  const cancel = state.status === "running" && !state.closed ? `<button class="cancel" data-action="cancel">Cancel</button>` : "";
  return `<div class="header">${parts.join(" ")}${cancel}</div>`;
}

/** Pending approvals whose tool card is not in the transcript (their events were lost). */
function orphanApprovals(state: SessionState): ApprovalRequested[] {
  const carded = new Set<string>();
  for (const e of state.transcript) {
    if (e.kind !== "turn") continue;
    for (const b of e.blocks) if (b.kind === "tool" && b.approval) carded.add(b.approval.approvalId);
  }
  return state.approvals.filter((a) => !carded.has(a.approvalId));
}

/** The inner HTML of the chat view for a session, or the empty view without one. */
export function renderChat(state: SessionState | undefined): string {
  if (!state) {
    return (
      `<div class="empty">No SCV session in this window.` +
      `<div><button data-action="new-session">New Session</button> ` +
      `<button class="secondary" data-action="open-session">Open Session…</button> ` +
      `<button class="secondary" data-action="attach-session">Attach to Session</button></div></div>`
    );
  }
  const pendingIds = new Set(state.approvals.map((a) => a.approvalId));
  const body = state.transcript
    .map((e) => (e.kind === "turn" ? renderTurn(e, pendingIds) : `<div class="notice notice-${e.level}">${escapeText(e.text)}</div>`))
    .join("");
  const orphans = orphanApprovals(state)
    .map(
      (a) =>
        `<div class="tool orphan" data-call-id="${escapeHtml(a.callId)}"><div class="tool-name">${escapeText(a.name)}</div>` +
        renderApproval({ approvalId: a.approvalId, risk: a.risk, cwd: a.cwd, summary: a.summary }, true) +
        `</div>`,
    )
    .join("");
  return renderHeader(state) + `<div class="transcript">${body}${orphans}</div>`;
}

export interface DocumentOptions {
  /** The webview's `cspSource`. */
  cspSource: string;
  /** A fresh random value for the script's CSP nonce. */
  nonce: string;
  scriptUri: string;
  styleUri: string;
  /** The initial inner HTML, from renderChat. */
  body: string;
}

/** The whole webview document: strict CSP, one script, the chat, and the input box. */
export function renderDocument(o: DocumentOptions): string {
  const csp = [
    "default-src 'none'",
    `style-src ${o.cspSource}`,
    `img-src ${o.cspSource} https: data:`,
    `script-src 'nonce-${o.nonce}'`,
  ].join("; ");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${escapeHtml(o.styleUri)}">
<title>SCV</title>
</head>
<body>
<main id="chat">${o.body}</main>
<form id="composer">
<textarea id="prompt" rows="3" placeholder="Ask SCV… (Enter to send, Shift+Enter for a new line; while a turn runs, Enter queues)"></textarea>
<div class="composer-buttons"><button id="send" type="submit">Send</button></div>
</form>
<script nonce="${escapeHtml(o.nonce)}" src="${escapeHtml(o.scriptUri)}"></script>
</body>
</html>`;
}
