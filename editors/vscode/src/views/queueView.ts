// The queue tree view: the current session's queued prompts, in order.
import * as vscode from "vscode";
import type { QueueEntry } from "../client/protocol";
import type { ScvServer } from "../server";

/** Characters of a prompt shown as the tree item's label. */
export const QUEUE_LABEL_CHARS = 80;

export class QueueView implements vscode.TreeDataProvider<QueueEntry>, vscode.Disposable {
  static readonly id = "scv.queue";
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly sub: { dispose(): void };
  private last: QueueEntry[] = [];

  constructor(private readonly server: ScvServer) {
    this.sub = server.store.onDidChange((s) => {
      const entries = s?.queue.entries ?? [];
      // Deltas change the state many times a second; the tree only when the queue does.
      if (entries !== this.last) {
        this.last = entries;
        this.changed.fire();
      }
    });
  }

  getChildren(element?: QueueEntry): QueueEntry[] {
    if (element) return [];
    return this.server.store.state?.queue.entries ?? [];
  }

  getTreeItem(e: QueueEntry): vscode.TreeItem {
    const oneLine = e.prompt.replace(/\s+/g, " ").trim();
    const label = oneLine.length > QUEUE_LABEL_CHARS ? `${oneLine.slice(0, QUEUE_LABEL_CHARS - 1)}…` : oneLine;
    const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
    item.id = e.queueId;
    item.contextValue = "scv.queueEntry";
    item.tooltip = new vscode.MarkdownString().appendText(e.prompt);
    item.description = `rev ${e.revision}`;
    return item;
  }

  dispose(): void {
    this.sub.dispose();
    this.changed.dispose();
  }
}
