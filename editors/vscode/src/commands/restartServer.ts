import * as vscode from "vscode";
import { Deps, ScvCommand } from "./run";

/** SCV: Restart Server — a fresh `scv lsp`, also after the crash limit stopped it. */
export const restartServer: ScvCommand = {
  id: "scv.restartServer",
  async run({ server }: Deps) {
    await server.restart();
    void vscode.window.setStatusBarMessage("SCV: server restarted", 3000);
  },
};
