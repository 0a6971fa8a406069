// The chat webview: renders the store's state (throttled while text streams) and
// turns the webview's messages into store calls and commands.
import { randomBytes } from "node:crypto";
import * as vscode from "vscode";
import { renderChat, renderDocument } from "../client/render";
import type { Decision } from "../client/protocol";
import type { ScvServer } from "../server";
import { runAction } from "../commands/run";

/** At most one render per this many milliseconds while deltas stream in. */
export const RENDER_INTERVAL_MS = 50;

const DECISIONS: Record<string, Decision> = { approve: "approve", deny: "deny", "approve-session": "approve-session" };

export class ChatView implements vscode.WebviewViewProvider, vscode.Disposable {
  static readonly id = "scv.chat";
  private view: vscode.WebviewView | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly subs: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly server: ScvServer,
  ) {
    this.subs.push(this.server.store.onDidChange(() => this.schedule()) as vscode.Disposable);
  }

  get visible(): boolean {
    return this.view?.visible ?? false;
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const dist = vscode.Uri.joinPath(this.extensionUri, "dist");
    const media = vscode.Uri.joinPath(this.extensionUri, "media");
    view.webview.options = { enableScripts: true, localResourceRoots: [dist, media] };
    view.webview.html = renderDocument({
      cspSource: view.webview.cspSource,
      nonce: randomBytes(16).toString("base64"),
      scriptUri: view.webview.asWebviewUri(vscode.Uri.joinPath(dist, "webview.js")).toString(),
      styleUri: view.webview.asWebviewUri(vscode.Uri.joinPath(media, "chat.css")).toString(),
      body: renderChat(this.server.store.state),
    });
    view.webview.onDidReceiveMessage((msg) => this.onMessage(msg), undefined, this.subs);
    view.onDidChangeVisibility(() => {
      if (!view.visible) return;
      // Whatever happened while hidden (a restarted server, lost events) is caught
      // up by re-attaching from the last seen event, then shown.
      if (this.server.running && this.server.store.sessionId) {
        this.server.store.refresh().catch(() => undefined);
      }
      this.renderNow();
    }, undefined, this.subs);
    view.onDidDispose(() => (this.view = undefined), undefined, this.subs);
  }

  private schedule(): void {
    if (this.timer || !this.view?.visible) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.renderNow();
    }, RENDER_INTERVAL_MS);
  }

  private renderNow(): void {
    void this.view?.webview.postMessage({ type: "render", html: renderChat(this.server.store.state) });
  }

  private onMessage(msg: { type?: string; prompt?: string; action?: string; approvalId?: string }): void {
    switch (msg.type) {
      case "ready":
        this.renderNow();
        return;
      case "send":
        if (msg.prompt) void vscode.commands.executeCommand("scv.sendPrompt", msg.prompt);
        return;
      case "action":
        void this.onAction(msg.action ?? "", msg.approvalId);
        return;
      case "pickAttachment":
        // `@` in the prompt box: the workspace file picker (scv.attachFile).
        void vscode.commands.executeCommand("scv.attachFile");
        return;
    }
  }

  private async onAction(action: string, approvalId?: string): Promise<void> {
    const decision = DECISIONS[action];
    if (decision && approvalId) {
      await runAction("Answer approval", async () => {
        const store = await this.server.ensure();
        if (!(await store.resolve(approvalId, decision))) {
          void vscode.window.showInformationMessage("SCV: this approval was already answered in another window.");
        }
      });
    } else if (action === "open-diff" && approvalId) {
      await vscode.commands.executeCommand("scv.approval.showDiff", approvalId);
    } else if (action === "cancel") {
      await vscode.commands.executeCommand("scv.cancelTurn");
    } else if (action === "new-session") {
      await vscode.commands.executeCommand("scv.newSession");
    } else if (action === "open-session") {
      await vscode.commands.executeCommand("scv.openSession");
    } else if (action === "attach-session") {
      await vscode.commands.executeCommand("scv.attachSession");
    }
    this.renderNow(); // re-enables the buttons the webview disabled on click
  }

  async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${ChatView.id}.focus`);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.subs.forEach((s) => s.dispose());
  }
}
