// What a restored session tells its user: the text of `scv/session/restored`.
import type { SessionRestored } from "./protocol";

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The notice of `scv/session/restored`: what the restart interrupted, and how to go on. */
export function restoredText(p: SessionRestored, resume = "“SCV: Resume Queue”"): string {
  const parts: string[] = [];
  if (p.interruptedTurnId) parts.push(`turn ${p.interruptedTurnId} was interrupted`);
  const cancelled = p.cancelledApprovals?.length ?? 0;
  if (cancelled) parts.push(`${plural(cancelled, "pending approval was", "pending approvals were")} cancelled`);
  if (p.queued) parts.push(plural(p.queued, "queued prompt", "queued prompts"));
  if (p.paused) parts.push("paused");
  const what = parts.length ? `: ${parts.join(", ")}` : "";
  return `Restored after a restart${what}${p.paused ? ` — resume with ${resume}` : ""}.`;
}
