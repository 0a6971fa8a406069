import * as vscode from "vscode";
import type { PromptContext } from "../client/protocol";
import { submit } from "./sendPrompt";
import { Deps, ScvCommand } from "./run";

/** The selection as prompt context: its URI and range, and its text when the file on disk differs. */
export function selectionContext(editor: vscode.TextEditor): PromptContext[] {
  return editor.selections
    .filter((s) => !s.isEmpty)
    .map((s) => {
      const ctx: PromptContext = {
        uri: editor.document.uri.toString(),
        range: {
          start: { line: s.start.line, character: s.start.character },
          end: { line: s.end.line, character: s.end.character },
        },
      };
      // The server reads the range from disk; unsaved or non-file text must travel with it.
      if (editor.document.isDirty || editor.document.uri.scheme !== "file") ctx.text = editor.document.getText(s);
      return ctx;
    });
}

/** SCV: Send Selection — asks for a prompt and sends it with the selected ranges as context. */
export const sendSelection: ScvCommand = {
  id: "scv.sendSelection",
  async run(deps: Deps) {
    const editor = vscode.window.activeTextEditor;
    const context = editor ? selectionContext(editor) : [];
    if (!editor || context.length === 0) {
      void vscode.window.showWarningMessage("SCV: select some text in an editor first.");
      return;
    }
    const prompt = await vscode.window.showInputBox({
      prompt: "What should SCV do with the selection?",
      value: "Explain this code.",
      ignoreFocusOut: true,
    });
    if (!prompt?.trim()) return;
    await submit(deps, prompt, context);
    await deps.chat.reveal();
  },
};
