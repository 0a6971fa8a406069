import { readSettings } from "../settings";
import { Deps, pickFolder, ScvCommand } from "./run";

/** SCV: New Session — a session in a workspace folder, with the `scv.*` settings. */
export const newSession: ScvCommand = {
  id: "scv.newSession",
  async run({ server, chat }: Deps) {
    const folder = await pickFolder();
    if (!folder) return undefined;
    const store = await server.ensure();
    const settings = readSettings();
    const state = await store.start({
      cwd: folder.uri.fsPath,
      approvalPolicy: settings.approvalPolicy,
      model: settings.model || undefined,
    });
    await chat.reveal();
    return state;
  },
};
