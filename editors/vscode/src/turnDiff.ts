// Opens VS Code's diff editor on a file a turn changed (before ↔ after), from
// read-only documents whose texts come from `scv/turn/changes {path}`.
import * as vscode from "vscode";
import { DiffDocuments, diffPaths } from "./client/diffDocs";
import type { SessionStore } from "./client/store";

export const TURN_DIFF_SCHEME = "scv-turn";

export class TurnDiffs implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly docs = new DiffDocuments();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly registration = vscode.workspace.registerTextDocumentContentProvider(TURN_DIFF_SCHEME, this);

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.docs.get(uri.path);
  }

  /** Asks the server for the file's texts and opens the diff; says why when there is none to show. */
  async open(store: SessionStore, turnId: string, path: string): Promise<void> {
    const file = await store.changedFile(turnId, path);
    if (!file) {
      void vscode.window.showInformationMessage(`SCV: the turn did not change ${path} (or it was undone).`);
      return;
    }
    if (file.binary) {
      void vscode.window.showInformationMessage(`SCV: ${path} is a binary file; its diff cannot be shown.`);
      return;
    }
    const paths = diffPaths(turnId, file.path);
    const before = vscode.Uri.from({ scheme: TURN_DIFF_SCHEME, path: paths.before });
    const after = vscode.Uri.from({ scheme: TURN_DIFF_SCHEME, path: paths.after });
    // An absent side is a file the turn created (before) or deleted (after).
    this.docs.set(paths.before, file.before ?? "");
    this.docs.set(paths.after, file.after ?? "");
    this.changed.fire(before);
    this.changed.fire(after);
    await vscode.commands.executeCommand("vscode.diff", before, after, `${file.path} (turn: before ↔ after)`, { preview: true });
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }
}
