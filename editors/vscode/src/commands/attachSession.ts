import * as vscode from "vscode";
import { Deps, ScvCommand } from "./run";

/** SCV: Attach to Session — pick one of the server's sessions (`scv/session/list`) and follow it. */
export const attachSession: ScvCommand = {
  id: "scv.attachSession",
  async run({ server, chat }: Deps) {
    const store = await server.ensure();
    const sessions = await store.conn.listSessions();
    if (sessions.length === 0) {
      void vscode.window.showInformationMessage("SCV: no session to attach to; start one with “SCV: New Session”.");
      return;
    }
    const pick = await vscode.window.showQuickPick(
      sessions.map((s) => ({
        label: s.cwd,
        description: `${s.state}${s.queued ? ` · ${s.queued} queued` : ""} · ${s.model}`,
        detail: `${s.sessionId} · ${s.clients} window(s) · since ${s.createdAt}`,
        sessionId: s.sessionId,
      })),
      { placeHolder: "SCV session to attach to" },
    );
    if (!pick) return;
    // From seq 0: the whole replay ring, so the transcript shows what came before.
    await store.attach(pick.sessionId, store.stateOf(pick.sessionId)?.seq ?? 0);
    await chat.reveal();
  },
};
