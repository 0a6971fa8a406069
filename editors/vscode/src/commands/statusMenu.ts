import * as vscode from "vscode";
import { editApprovals } from "../approvalDiff";
import { Deps, ScvCommand } from "./run";

interface Action extends vscode.QuickPickItem {
  command: string;
}

/** SCV: Show Actions — what the status bar item opens: the actions that apply now. */
export const statusMenu: ScvCommand = {
  id: "scv.statusMenu",
  async run({ server }: Deps) {
    const s = server.store.state;
    const live = s !== undefined && !s.closed;
    const actions: Array<Action | false> = [
      { label: "$(comment-discussion) Show Chat", command: "scv.showChat" },
      { label: "$(send) Send Prompt…", command: "scv.sendPrompt" },
      { label: "$(mention) Attach File or Selection…", command: "scv.attachFile" },
      editApprovals(s?.approvals ?? []).length > 0 && { label: "$(diff) Review Edit in Diff Editor", command: "scv.approval.showDiff" },
      live && s.status === "running" && { label: "$(debug-stop) Cancel Turn", command: "scv.cancelTurn" },
      live && !s.queue.paused && { label: "$(debug-pause) Pause Queue", command: "scv.pauseQueue" },
      live && s.queue.paused && { label: "$(debug-continue) Resume Queue", command: "scv.resumeQueue" },
      { label: "$(add) New Session", command: "scv.newSession" },
      { label: "$(history) Open Session…", command: "scv.openSession" },
      { label: "$(output) Show Output", command: "scv.showOutput" },
      { label: "$(debug-restart) Restart Server", command: "scv.restartServer" },
    ];
    const pick = await vscode.window.showQuickPick(
      actions.filter((a): a is Action => a !== false),
      { placeHolder: "SCV" },
    );
    if (pick) await vscode.commands.executeCommand(pick.command);
  },
};
