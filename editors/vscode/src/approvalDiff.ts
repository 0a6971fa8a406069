// Edit approvals in VS Code's own diff editor: the file as it is (left) beside
// the file as the approval proposes it (right), both read-only documents of
// the `scv-proposed` scheme, with Approve / Approve for Session / Deny as
// editor-title actions (package.json: menus.editor/title, when
// `resourceScheme == scv-proposed`). The proposed text is the approval's own
// unified diff applied to the file on disk (client/proposedEdit.ts).
import * as vscode from "vscode";
import { applyUnifiedDiff, parseEditSummary, StaleDiffError } from "./client/proposedEdit";
import type { ApprovalRequested, Decision } from "./client/protocol";
import type { ScvServer } from "./server";

export const PROPOSED_SCHEME = "scv-proposed";

type Side = "current" | "proposed";

/** The approval a diff document belongs to, and which side it is. */
export function approvalOf(uri: vscode.Uri | undefined): { approvalId: string; side: Side } | undefined {
  if (uri?.scheme !== PROPOSED_SCHEME) return undefined;
  const q = new URLSearchParams(uri.query);
  const approvalId = q.get("approval");
  const side = q.get("side");
  return approvalId && (side === "current" || side === "proposed") ? { approvalId, side } : undefined;
}

/** The approvals that can be shown as a diff. */
export function editApprovals(approvals: readonly ApprovalRequested[]): ApprovalRequested[] {
  return approvals.filter((a) => parseEditSummary(a.name, a.summary) !== undefined);
}

export class ApprovalDiffs implements vscode.TextDocumentContentProvider, vscode.Disposable {
  /** Document text by URI, computed when the diff is opened. */
  private readonly texts = new Map<string, string>();
  private readonly subs: vscode.Disposable[] = [];

  constructor(private readonly server: ScvServer) {
    this.subs.push(
      vscode.workspace.registerTextDocumentContentProvider(PROPOSED_SCHEME, this),
      // An approval answered anywhere (another window, the chat, a timeout)
      // closes its diff: its buttons would have nothing left to answer.
      server.store.onDidChange((s) => this.closeAnswered(new Set(s?.approvals.map((a) => a.approvalId) ?? []))) as vscode.Disposable,
    );
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? "";
  }

  /** Opens the diff of a pending edit approval; says why when it cannot. */
  async open(approvalId: string): Promise<void> {
    const a = this.server.store.state?.approvals.find((p) => p.approvalId === approvalId);
    if (!a) {
      void vscode.window.showInformationMessage("SCV: this approval was already answered.");
      return;
    }
    const edit = parseEditSummary(a.name, a.summary);
    if (!edit) {
      void vscode.window.showInformationMessage(`SCV: ${a.name} has no diff to open; see the approval in the chat.`);
      return;
    }
    const file = vscode.Uri.joinPath(vscode.Uri.file(a.cwd), edit.path);
    let current = "";
    if (!edit.isNew) current = new TextDecoder().decode(await vscode.workspace.fs.readFile(file));
    let proposed: string;
    try {
      proposed = applyUnifiedDiff(current, edit.diff);
    } catch (err) {
      if (!(err instanceof StaleDiffError)) throw err;
      void vscode.window.showWarningMessage(`SCV: ${edit.path} changed since the approval was asked (${err.message}); the chat shows the diff as asked.`);
      return;
    }
    const uri = (side: Side) =>
      vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: `/${edit.path}`, query: new URLSearchParams({ approval: approvalId, side }).toString() });
    this.texts.set(uri("current").toString(), current);
    this.texts.set(uri("proposed").toString(), proposed);
    const title = `${edit.path}: ${edit.isNew ? "new file" : "current"} ↔ proposed (SCV ${a.name})`;
    await vscode.commands.executeCommand("vscode.diff", uri("current"), uri("proposed"), title, { preview: false });
  }

  /** Answers the approval a diff document belongs to, then closes the diff. */
  async answer(uri: vscode.Uri | undefined, decision: Decision): Promise<void> {
    const target = approvalOf(uri ?? vscode.window.activeTextEditor?.document.uri);
    if (!target) {
      void vscode.window.showWarningMessage("SCV: open an edit approval's diff first (SCV: Review Edit in Diff Editor).");
      return;
    }
    const store = await this.server.ensure();
    if (!(await store.resolve(target.approvalId, decision))) {
      void vscode.window.showInformationMessage("SCV: this approval was already answered in another window.");
    }
    await this.close(target.approvalId);
  }

  private closeAnswered(pending: Set<string>): void {
    for (const key of [...this.texts.keys()]) {
      const id = approvalOf(vscode.Uri.parse(key))?.approvalId;
      if (id && !pending.has(id)) void this.close(id);
    }
  }

  private async close(approvalId: string): Promise<void> {
    for (const key of [...this.texts.keys()]) if (approvalOf(vscode.Uri.parse(key))?.approvalId === approvalId) this.texts.delete(key);
    const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => {
      const input = t.input;
      return input instanceof vscode.TabInputTextDiff && approvalOf(input.modified)?.approvalId === approvalId;
    });
    if (tabs.length) await vscode.window.tabGroups.close(tabs);
  }

  dispose(): void {
    this.subs.forEach((s) => s.dispose());
    this.texts.clear();
  }
}
