// Shared plumbing of the commands: what they get, and how their errors are shown.
import * as vscode from "vscode";
import { describeError } from "../client/connection";
import { QueueConflictError } from "../client/store";
import type { ApprovalDiffs } from "../approvalDiff";
import type { PendingAttachments } from "../client/attachments";
import type { ScvServer } from "../server";
import type { ChatView } from "../views/chatView";

export interface Deps {
  server: ScvServer;
  chat: ChatView;
  output: vscode.LogOutputChannel;
  diffs: ApprovalDiffs;
  /** What the `@` picker attached, for the next prompt. */
  attachments: PendingAttachments;
}

export interface ScvCommand {
  id: string;
  run(deps: Deps, ...args: any[]): Promise<unknown>;
}

/** Runs a user action; a failure becomes a message naming the action, never an unhandled rejection. */
export async function runAction<T>(title: string, fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof QueueConflictError) {
      void vscode.window.showWarningMessage(`SCV: ${err.message}`);
    } else {
      void vscode.window.showErrorMessage(`SCV: ${title} failed: ${describeError(err)}`);
    }
    return undefined;
  }
}

/** The workspace folder a new session runs in: the only one, or the user's pick. */
export async function pickFolder(): Promise<vscode.WorkspaceFolder | undefined> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length === 0) {
    void vscode.window.showErrorMessage("SCV: open a folder first; a session runs in a workspace folder.");
    return undefined;
  }
  if (folders.length === 1) return folders[0];
  return vscode.window.showWorkspaceFolderPick({ placeHolder: "Folder the SCV session works in" });
}
