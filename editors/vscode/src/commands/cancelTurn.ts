import * as vscode from "vscode";
import { Deps, ScvCommand } from "./run";

/** SCV: Cancel Turn — cancels the running turn of the current session. */
export const cancelTurn: ScvCommand = {
  id: "scv.cancelTurn",
  async run({ server }: Deps) {
    if (!(await server.store.cancel())) void vscode.window.showInformationMessage("SCV: no turn is running.");
  },
};
