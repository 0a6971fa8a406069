import * as vscode from "vscode";
import { Deps, ScvCommand } from "./run";

/** SCV: Clear Session — empties the history and the queue after a confirmation. */
export const clearSession: ScvCommand = {
  id: "scv.clearSession",
  async run({ server }: Deps) {
    const ok = await vscode.window.showWarningMessage(
      "Clear the SCV session? Its history and queued prompts are dropped.",
      { modal: true },
      "Clear",
    );
    if (ok === "Clear") await server.store.clear();
  },
};
