// HTML of the chat view, rendered from a SessionState. Pure string building with
// every piece of server or model text escaped; Markdown goes through markdown-it
// with raw HTML disabled, so a model cannot inject markup into the webview.
import { escapeHtml, escapeText } from "./escape";
import type { ApprovalRequested } from "./protocol";
import { renderApproval, renderTurn } from "./renderTurn";
import type { SessionState } from "./state";
import { approvalView } from "./turns";
import { usageText } from "./summary";

export { escapeHtml, escapeText } from "./escape";
export { renderMarkdown } from "./markdown";
export { attachmentLabel, MAX_RENDERED_OUTPUT_CHARS, renderDiff, renderSummary } from "./renderTurn";

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
    queued ? `<span class="queued">${queued} queued${state.queue.paused ? " (paused)" : ""}</span>` : state.queue.paused ? `<span class="queued">queue paused</span>` : "",
    state.lastUsage ? `<span class="last-usage">last turn: ${state.lastUsage.inputTokens} in · ${state.lastUsage.outputTokens} out</span>` : "",
    usageText(state) ? `<span class="ctx" title="Context used by the last model call · tokens of the session">${escapeHtml(usageText(state)!)}</span>` : "",
  ].filter(Boolean);
  const pickers = state.closed
    ? ""
    : `<button class="secondary picker" data-action="pick-model" title="Switch the model" aria-label="Model ${escapeHtml(state.model || "default")}: switch">` +
      `${escapeText(state.model || "model")} ▾</button>` +
      `<button class="secondary picker" data-action="pick-policy" title="Switch the approval policy" aria-label="Approval policy ${escapeHtml(state.approvalPolicy ?? "")}: switch">` +
      `${escapeHtml(state.approvalPolicy ?? "policy")} ▾</button>`;
  const cancel = state.status === "running" && !state.closed ? `<button class="cancel" data-action="cancel">Cancel</button>` : "";
  return `<div class="header">${parts.join(" ")}<span class="pickers">${pickers}</span>${cancel}</div>`;
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

const EMPTY =
  `<div class="empty">No SCV session in this window.` +
  `<div><button data-action="new-session">New Session</button> ` +
  `<button class="secondary" data-action="open-session">Open Session…</button> ` +
  `<button class="secondary" data-action="attach-session">Attach to Session</button></div></div>`;

/**
 * The chat in keyed pieces: the header, then one element per transcript entry
 * (and per orphan approval). The webview replaces only the pieces whose HTML
 * changed, so a streaming turn does not rebuild the DOM of a long transcript.
 */
export interface ChatParts {
  header: string;
  items: Array<{ key: string; html: string }>;
}

export function renderChatParts(state: SessionState): ChatParts {
  const pendingIds = new Set(state.approvals.map((a) => a.approvalId));
  const items = state.transcript.map((e, i) =>
    e.kind === "turn"
      ? { key: `turn:${e.turnId}`, html: renderTurn(e, pendingIds) }
      : { key: `notice:${i}`, html: `<div class="notice notice-${e.level}">${escapeText(e.text)}</div>` },
  );
  for (const a of orphanApprovals(state)) {
    items.push({
      key: `orphan:${a.approvalId}`,
      html:
        `<div class="tool orphan" data-call-id="${escapeHtml(a.callId)}"><div class="tool-name">${escapeText(a.name)}</div>` +
        renderApproval(approvalView(a), true) +
        `</div>`,
    });
  }
  return { header: renderHeader(state), items };
}

/** The inner HTML of the chat view for a session, or the empty view without one. */
export function renderChat(state: SessionState | undefined): string {
  if (!state) return EMPTY;
  const parts = renderChatParts(state);
  return parts.header + `<div class="transcript">${parts.items.map((i) => i.html).join("")}</div>`;
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
<div id="announcer" class="sr-only" role="status" aria-live="polite" aria-atomic="true"></div>
<form id="composer" aria-label="Prompt">
<div id="attachments" class="chips" aria-label="Attached files"></div>
<textarea id="prompt" rows="3" aria-label="Prompt for SCV" aria-describedby="prompt-help" placeholder="Ask SCV… (@ attaches a file)"></textarea>
<div id="prompt-help" class="sr-only">Enter sends, Shift+Enter starts a new line. While a turn runs, Enter queues the prompt and Control+Enter sends it now to steer the running turn. @ attaches a file.</div>
<div class="composer-buttons"><button id="steer" type="button" class="secondary" hidden title="Add this to the running turn (Ctrl+Enter)">Send now (steer)</button><button id="send" type="submit">Send</button></div>
</form>
<script nonce="${escapeHtml(o.nonce)}" src="${escapeHtml(o.scriptUri)}"></script>
</body>
</html>`;
}
