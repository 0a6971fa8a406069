// What the chat announces to screen readers (the webview's aria-live region) when
// the state changes: the moments a user must know about, not every streamed word.
import type { SessionState, TurnEntry } from "./state";

function turns(s: SessionState | undefined): Map<string, TurnEntry> {
  const m = new Map<string, TurnEntry>();
  for (const e of s?.transcript ?? []) if (e.kind === "turn") m.set(e.turnId, e);
  return m;
}

/** One short sentence per news between two states, or undefined when nothing is worth saying. */
export function announcement(before: SessionState | undefined, after: SessionState | undefined): string | undefined {
  if (!after || !before || before.sessionId !== after.sessionId) return undefined;
  const said: string[] = [];
  const was = turns(before);
  for (const [id, t] of turns(after)) {
    const old = was.get(id);
    if (!old) {
      // A new turn: a live one is news; replayed ones (opening a session) are not.
      if (t.status === "running") said.push("SCV is working.");
      continue;
    }
    if (old.status === "running" && t.status !== "running") {
      if (t.status === "completed") said.push("Answer complete.");
      else if (t.status === "cancelled") said.push("Turn cancelled.");
      else if (t.status === "failed") said.push(`Turn failed: ${t.failure?.message ?? "unknown error"}.`);
    }
    if (t.plan && JSON.stringify(t.plan) !== JSON.stringify(old.plan)) {
      const done = t.plan.filter((p) => p.status === "completed").length;
      said.push(`Plan: ${done} of ${t.plan.length} steps done.`);
    }
    if (t.changes?.length && !old.changes?.length) said.push(`${t.changes.length} file${t.changes.length === 1 ? "" : "s"} changed.`);
    if (t.reverted && !old.reverted) said.push("Turn undone.");
    if (t.revertConflicts?.length && t.revertConflicts !== old.revertConflicts) {
      said.push(`${t.revertConflicts.length} file${t.revertConflicts.length === 1 ? "" : "s"} not undone: changed since the turn.`);
    }
  }
  for (const a of after.approvals) {
    if (!before.approvals.some((b) => b.approvalId === a.approvalId)) said.push(`Approval needed: ${a.name} (${a.risk}).`);
  }
  if (after.model !== before.model) said.push(`Model: ${after.model}.`);
  if (after.approvalPolicy && after.approvalPolicy !== before.approvalPolicy) said.push(`Approval policy: ${after.approvalPolicy}.`);
  return said.length ? said.join(" ") : undefined;
}
