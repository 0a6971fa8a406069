// The approval commands of the diff editor: open an edit approval's diff, and
// answer it from the diff's title bar.
import * as vscode from "vscode";
import { editApprovals } from "../approvalDiff";
import type { Decision } from "../client/protocol";
import { revealHidden } from "../client/revealHidden";
import { Deps, ScvCommand } from "./run";

/** SCV: Review Edit in Diff Editor — the given approval, the only pending edit, or a pick. */
export const showApprovalDiff: ScvCommand = {
  id: "scv.approval.showDiff",
  async run({ server, diffs }: Deps, approvalId?: unknown) {
    if (typeof approvalId === "string") return diffs.open(approvalId);
    const edits = editApprovals(server.store.state?.approvals ?? []);
    if (edits.length === 0) {
      void vscode.window.showInformationMessage("SCV: no edit is waiting for approval.");
      return;
    }
    const pick =
      edits.length === 1
        ? edits[0]
        : (
            await vscode.window.showQuickPick(
              edits.map((a) => ({ label: revealHidden(a.summary.split("\n", 1)[0]), approval: a })),
              { placeHolder: "Edit to review" },
            )
          )?.approval;
    if (pick) await diffs.open(pick.approvalId);
  },
};

function answer(id: string, decision: Decision): ScvCommand {
  return {
    id,
    run: ({ diffs }: Deps, uri?: unknown) => diffs.answer(uri instanceof vscode.Uri ? uri : undefined, decision),
  };
}

/** SCV: Approve Edit / Approve Edit for Session / Deny Edit — editor-title actions of the diff. */
export const approveEdit = answer("scv.approval.approve", "approve");
export const approveEditForSession = answer("scv.approval.approveSession", "approve-session");
export const denyEdit = answer("scv.approval.deny", "deny");
