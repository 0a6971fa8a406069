// The chat webview: renders the store's state (throttled while text streams; the
// webview batches again per animation frame), announces news to screen readers,
// and turns the webview's messages into store calls and commands.
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import * as vscode from "vscode";
import { pickAttachment } from "../attachPicker";
import { announcement } from "../client/announce";
import { attachmentChips, parseChatMessage, toAttachments, type ChatMessage } from "../client/chatMessages";
import type { Decision, PromptContext } from "../client/protocol";
import { renderChat, renderChatParts, renderDocument } from "../client/render";
import type { SessionState } from "../client/state";
import type { ScvServer } from "../server";
import { runAction } from "../commands/run";
import { TurnDiffs } from "../turnDiff";
import { allowAlways, openAnswerFile, openTurnDiff, pickModel, pickPolicy, undoTurn, useCode } from "./chatActions";

/** At most one render per this many milliseconds while deltas stream in. */
export const RENDER_INTERVAL_MS = 50;
/**
 * The pause after a render is at least this many times the render's own time: a
 * very long answer renders more slowly, and the host must not spend itself on it.
 */
export const RENDER_BACKOFF = 2;

const DECISIONS: Record<string, Decision> = { approve: "approve", deny: "deny", "approve-session": "approve-session" };

/** Commands the chat's empty view and header buttons run as they are. */
const COMMAND_ACTIONS: Record<string, string> = {
  cancel: "scv.cancelTurn",
  "new-session": "scv.newSession",
  "open-session": "scv.openSession",
  "attach-session": "scv.attachSession",
};

export class ChatView implements vscode.WebviewViewProvider, vscode.Disposable {
  static readonly id = "scv.chat";
  private view: vscode.WebviewView | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** The pause before the next render: RENDER_INTERVAL_MS, or longer after a slow render. */
  private interval = RENDER_INTERVAL_MS;
  private readonly subs: vscode.Disposable[] = [];
  private readonly diffs = new TurnDiffs();
  /** The state last shown, to tell what to announce. */
  private shown: SessionState | undefined;
  /** Files attached with `@`, sent with the next prompt. */
  private attachments: PromptContext[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly server: ScvServer,
  ) {
    this.subs.push(this.server.store.onDidChange(() => this.schedule()) as vscode.Disposable, this.diffs);
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
    }, this.interval);
  }

  private renderNow(): void {
    const state = this.server.store.state;
    const announce = announcement(this.shown, state);
    this.shown = state;
    const running = state !== undefined && state.status === "running" && !state.closed;
    const started = performance.now();
    // Keyed parts: the webview rebuilds only what changed (the streaming turn), not the whole transcript.
    const body = state ? { parts: renderChatParts(state) } : { html: renderChat(undefined) };
    this.interval = Math.max(RENDER_INTERVAL_MS, RENDER_BACKOFF * (performance.now() - started));
    void this.view?.webview.postMessage({ type: "render", ...body, running, announce });
  }

  private showAttachments(): void {
    void this.view?.webview.postMessage({ type: "attachments", items: attachmentChips(this.attachments) });
  }

  private onMessage(raw: unknown): void {
    const msg = parseChatMessage(raw);
    if (msg) void this.handle(msg);
  }

  private async handle(msg: ChatMessage): Promise<void> {
    switch (msg.type) {
      case "ready":
        this.renderNow();
        if (this.attachments.length) this.showAttachments(); // a reloaded webview lost its chips
        return;
      case "send": {
        const context = this.attachments.length ? this.attachments : undefined;
        this.attachments = [];
        this.showAttachments();
        await runAction(msg.steer ? "Steer" : "Send prompt", () => this.send(msg.prompt, msg.steer, context));
        return;
      }
      case "pickAttachment": {
        // `@` in the prompt box: the workspace file picker; the pick becomes a chip
        // of this prompt (the palette's SCV: Attach File waits for the next prompt instead).
        const picked = await runAction("Attach file", () => pickAttachment());
        this.attachments = [...this.attachments, ...toAttachments(picked?.context)];
        this.showAttachments();
        return;
      }
      case "removeAttachment":
        this.attachments = this.attachments.filter((_, i) => i !== msg.index);
        this.showAttachments();
        return;
      case "openFile":
        await runAction("Open file", () => openAnswerFile(this.server.store, msg.path, msg.line));
        return;
      case "code":
        await runAction(msg.action === "copy" ? "Copy code" : "Insert code", () => useCode(msg.action, msg.text));
        return;
      case "action":
        await this.onAction(msg);
        this.renderNow(); // re-enables the buttons the webview disabled on click
        return;
    }
  }

  /** Steers the running turn when asked to and one runs; otherwise sends (starts or queues). */
  private async send(prompt: string, steer: boolean, context?: PromptContext[]): Promise<void> {
    const store = this.server.store;
    if (steer && store.state?.status === "running" && !store.state.closed) {
      const r = await store.steer(prompt, context);
      if (!r.steered && r.result.status === "queued") {
        const why = context?.length ? "attachments cannot join a running turn" : "the turn had ended";
        void vscode.window.setStatusBarMessage(`SCV: queued (${why}) at position ${r.result.position + 1}`, 4000);
      }
      return;
    }
    await vscode.commands.executeCommand("scv.sendPrompt", prompt, context);
  }

  private async onAction(msg: Extract<ChatMessage, { type: "action" }>): Promise<void> {
    const { action, approvalId, turnId, path } = msg;
    const decision = DECISIONS[action];
    const store = this.server.store;
    if (decision && approvalId) {
      await runAction("Answer approval", async () => {
        if (!(await (await this.server.ensure()).resolve(approvalId, decision))) {
          void vscode.window.showInformationMessage("SCV: this approval was already answered in another window.");
        }
      });
    } else if (action === "allow-rule" && approvalId) {
      await runAction("Always allow", () => allowAlways(store, approvalId));
    } else if (action === "pick-model") {
      await runAction("Switch model", () => pickModel(store));
    } else if (action === "pick-policy") {
      await runAction("Switch approval policy", () => pickPolicy(store));
    } else if (action === "open-diff" && turnId && path) {
      await runAction("Open diff", () => openTurnDiff(store, this.diffs, turnId, path));
    } else if ((action === "undo-turn" || action === "revert-force") && turnId) {
      await runAction("Undo turn", () => undoTurn(store, turnId, action === "revert-force"));
    } else if (COMMAND_ACTIONS[action]) {
      await vscode.commands.executeCommand(COMMAND_ACTIONS[action]);
    } else if (action === "review-edit" && approvalId) {
      await vscode.commands.executeCommand("scv.approval.showDiff", approvalId);
    }
  }

  async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${ChatView.id}.focus`);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.subs.forEach((s) => s.dispose());
  }
}
