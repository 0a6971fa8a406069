// What every approval UI of the extension says of a rule held for the user's
// confirmation (scv/approval/requested `notice` and `confirmsRule`): a rule
// that appeared in the user's config while a tool call ran, which a command
// may have planted. The chat card, the "Always allow" modal and the
// notification all take their wording from here.
import type { ApprovalView } from "./state";

/** The label of the "Always allow" answer; it says when answering confirms a held rule. */
export function allowRuleLabel(a: Pick<ApprovalView, "suggestedRule" | "confirmsRule">): string {
  return a.confirmsRule ? `Always allow ${a.suggestedRule} (confirms the held rule)` : `Always allow ${a.suggestedRule}`;
}

/**
 * What a notification adds for a held rule: the notice, and where the answer that
 * confirms it is (the notification offers only approve, deny and approve for session).
 */
export function notificationNote(a: Pick<ApprovalView, "notice" | "confirmsRule">): string {
  if (!a.notice) return "";
  return ` Note: ${a.notice}.` + (a.confirmsRule ? ` "Show in Chat" offers the answer that confirms it; these answers leave it held.` : "");
}

/** The question of the "Always allow" modal. */
export function allowRuleQuestion(a: Pick<ApprovalView, "suggestedRule" | "confirmsRule">): string {
  return a.confirmsRule ? `Confirm the held rule ${a.suggestedRule} and always allow it?` : `Always allow ${a.suggestedRule}?`;
}

/** The detail of the "Always allow" modal: the notice first, when the rule is held. */
export function allowRuleDetail(a: Pick<ApprovalView, "notice" | "confirmsRule">): string {
  const what = a.confirmsRule
    ? "Confirming it lets SCV run such calls without asking, in every session; only do so if you wrote it."
    : "SCV will run such calls without asking, in every session: the rule is added to [approvals] allow in your user config.";
  return (a.notice ? `${a.notice}\n\n` : "") + `${what} This call is approved now.`;
}
