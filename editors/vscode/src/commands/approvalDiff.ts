// The approval commands of the diff editor: open an edit approval's diff, and
// answer it from the diff's title bar.
import * as vscode from "vscode";
import { editApprovals } from "../approvalDiff";
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

/** The diff editor's title actions: the URI is the document of the diff the user looks at. */
const fromTitle = (uri: unknown) => (uri instanceof vscode.Uri ? uri : undefined);

/** SCV: Approve Edit. */
export const approveEdit: ScvCommand = {
  id: "scv.approval.approve",
  run: ({ diffs }: Deps, uri?: unknown) => diffs.answer(fromTitle(uri), "approve"),
};

/** SCV: Approve Edit for Session. */
export const approveEditForSession: ScvCommand = {
  id: "scv.approval.approveSession",
  run: ({ diffs }: Deps, uri?: unknown) => diffs.answer(fromTitle(uri), "approve-session"),
};

/** SCV: Deny Edit. */
export const denyEdit: ScvCommand = {
  id: "scv.approval.deny",
  run: ({ diffs }: Deps, uri?: unknown) => diffs.answer(fromTitle(uri), "deny"),
};
