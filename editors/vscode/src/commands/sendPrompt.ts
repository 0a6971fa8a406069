import * as vscode from "vscode";
import type { PromptContext } from "../client/protocol";
import { withAttachments } from "../client/attachments";
import type { SessionStore } from "../client/store";
import { newSession } from "./newSession";
import { Deps, ScvCommand } from "./run";

/** Sends a prompt in the current session, starting a session first when there is none. */
export async function submit(deps: Deps, prompt: string, context?: PromptContext[]): Promise<void> {
  let store: SessionStore = await deps.server.ensure();
  if (!store.state || store.state.closed) {
    if (!(await newSession.run(deps))) return;
    store = deps.server.store;
  }
  const result = await store.sendPrompt(prompt, withAttachments(deps.attachments, context));
  if (result.status === "queued") {
    void vscode.window.setStatusBarMessage(`SCV: prompt queued at position ${result.position + 1}`, 3000);
  }
}

/** SCV: Send Prompt — from an input box, or with the prompt (and the chat's attachments) as arguments. */
export const sendPrompt: ScvCommand = {
  id: "scv.sendPrompt",
  async run(deps: Deps, text?: unknown, context?: PromptContext[]) {
    const prompt =
      typeof text === "string" ? text : await vscode.window.showInputBox({ prompt: "Prompt for SCV", ignoreFocusOut: true });
    if (!prompt?.trim()) return;
    await submit(deps, prompt, Array.isArray(context) && context.length ? context : undefined);
  },
};
