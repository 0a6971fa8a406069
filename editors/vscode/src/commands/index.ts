// Registers every command; the list is the single source the package.json test checks.
import * as vscode from "vscode";
import { approveEdit, approveEditForSession, denyEdit, showApprovalDiff } from "./approvalDiff";
import { attachFile } from "./attachFile";
import { attachSession } from "./attachSession";
import { cancelTurn } from "./cancelTurn";
import { clearSession } from "./clearSession";
import { newSession } from "./newSession";
import { openSession } from "./openSession";
import { pauseQueue } from "./pauseQueue";
import { editQueued, moveQueuedDown, moveQueuedUp, refreshQueue, removeQueued } from "./queue";
import { restartServer } from "./restartServer";
import { resumeQueue } from "./resumeQueue";
import { Deps, runAction, ScvCommand } from "./run";
import { sendPrompt } from "./sendPrompt";
import { sendSelection } from "./sendSelection";
import { showChat } from "./showChat";
import { showOutput } from "./showOutput";
import { statusMenu } from "./statusMenu";

export const COMMANDS: readonly ScvCommand[] = [
  newSession,
  sendPrompt,
  sendSelection,
  cancelTurn,
  pauseQueue,
  resumeQueue,
  clearSession,
  attachSession,
  openSession,
  showOutput,
  showChat,
  restartServer,
  editQueued,
  moveQueuedUp,
  moveQueuedDown,
  removeQueued,
  refreshQueue,
  showApprovalDiff,
  approveEdit,
  approveEditForSession,
  denyEdit,
  attachFile,
  statusMenu,
];

export function registerCommands(deps: Deps): vscode.Disposable[] {
  return COMMANDS.map((c) =>
    vscode.commands.registerCommand(c.id, (...args: unknown[]) => runAction(c.id.replace(/^scv\./, ""), () => c.run(deps, ...args))),
  );
}
