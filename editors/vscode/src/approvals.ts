// When an approval arrives and the chat is not visible, ask with a notification
// carrying the same three answers as the approval card.
import * as vscode from "vscode";
import type { ApprovalRequested, Decision } from "./client/protocol";
import type { ScvServer } from "./server";
import type { ChatView } from "./views/chatView";
import { runAction } from "./commands/run";
import { revealHidden } from "./client/revealHidden";
import { parseEditSummary } from "./client/proposedEdit";
import { notificationNote } from "./client/heldRule";

const ANSWERS: Array<[string, Decision]> = [
  ["Approve", "approve"],
  ["Deny", "deny"],
  ["Approve for Session", "approve-session"],
];
const SHOW_IN_CHAT = "Show in Chat";
const OPEN_DIFF = "Open Diff";

export class ApprovalNotifier implements vscode.Disposable {
  private readonly sub: { dispose(): void };

  constructor(
    private readonly server: ScvServer,
    private readonly chat: ChatView,
  ) {
    this.sub = server.store.onApproval((a) => {
      if (!this.chat.visible) void this.ask(a);
    });
  }

  private async ask(a: ApprovalRequested): Promise<void> {
    // Notifications render [text](target) as a link, command: links included:
    // the model's text must not become one.
    const inert = (s: string) => revealHidden(s).replace(/\]\(/g, "] (");
    const firstLine = inert(a.summary.split("\n", 1)[0]);
    const pick = await vscode.window.showWarningMessage(
      `SCV asks to run ${revealHidden(a.name)} (${revealHidden(a.risk)}): ${firstLine}${inert(notificationNote(a))}`,
      ...ANSWERS.map(([label]) => label),
      ...(parseEditSummary(a.name, a.summary) ? [OPEN_DIFF] : []),
      SHOW_IN_CHAT,
    );
    if (pick === SHOW_IN_CHAT) {
      await this.chat.reveal();
      return;
    }
    if (pick === OPEN_DIFF) {
      await vscode.commands.executeCommand("scv.approval.showDiff", a.approvalId);
      return;
    }
    const decision = ANSWERS.find(([label]) => label === pick)?.[1];
    if (!decision) return;
    // The prompt may have been answered elsewhere while this one was on screen.
    if (!this.server.store.state?.approvals.some((p) => p.approvalId === a.approvalId)) {
      void vscode.window.showInformationMessage("SCV: this approval was already answered.");
      return;
    }
    await runAction("Answer approval", async () => {
      if (!(await this.server.store.resolve(a.approvalId, decision))) {
        void vscode.window.showInformationMessage("SCV: this approval was already answered in another window.");
      }
    });
  }

  dispose(): void {
    this.sub.dispose();
  }
}
