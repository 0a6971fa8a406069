// Entry point: wires the server, the store's views and the commands together.
// Everything protocol-related lives in client/, which does not import vscode.
import * as vscode from "vscode";
import { ApprovalDiffs } from "./approvalDiff";
import { ApprovalNotifier } from "./approvals";
import { PendingAttachments } from "./client/attachments";
import { registerCommands } from "./commands";
import { ScvServer } from "./server";
import { affectsServer } from "./settings";
import { StatusBar } from "./statusBar";
import { ChatView } from "./views/chatView";
import { QueueView } from "./views/queueView";

let server: ScvServer | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const output = vscode.window.createOutputChannel("SCV", { log: true });
  server = new ScvServer(output);
  const chat = new ChatView(context.extensionUri, server);
  const queue = new QueueView(server);
  const diffs = new ApprovalDiffs(server);
  const deps = { server, chat, output, diffs, attachments: new PendingAttachments() };

  context.subscriptions.push(
    output,
    server,
    chat,
    queue,
    diffs,
    vscode.window.registerWebviewViewProvider(ChatView.id, chat, { webviewOptions: { retainContextWhenHidden: false } }),
    vscode.window.createTreeView(QueueView.id, { treeDataProvider: queue }),
    new StatusBar(server),
    new ApprovalNotifier(server, chat),
    ...registerCommands(deps),
    server.store.onError((message) => output.warn(message)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!affectsServer(e) || !server?.running) return;
      void vscode.window
        .showInformationMessage("SCV: the server settings changed.", "Restart Server")
        .then((pick) => (pick ? vscode.commands.executeCommand("scv.restartServer") : undefined));
    }),
  );
}

/** Stops the server within its timeout (shutdown, then kill). */
export async function deactivate(): Promise<void> {
  const s = server;
  server = undefined;
  await s?.stop();
}
