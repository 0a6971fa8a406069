import * as vscode from "vscode";
import { pickAttachment } from "../attachPicker";
import { Deps, ScvCommand } from "./run";

/**
 * SCV: Attach File or Selection… — the `@` picker (the chat's prompt box opens
 * it on `@`, with the message {type: "pickAttachment"}). The pick goes with the
 * next prompt as `scv/turn/start` context.
 */
export const attachFile: ScvCommand = {
  id: "scv.attachFile",
  async run({ attachments }: Deps) {
    const pick = await pickAttachment();
    if (!pick) return undefined;
    for (const ctx of pick.context) attachments.add(ctx);
    void vscode.window.setStatusBarMessage(`SCV: ${pick.label} attached to the next prompt (${attachments.size} waiting)`, 5000);
    return pick.label;
  },
};
