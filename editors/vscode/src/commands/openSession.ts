import * as vscode from "vscode";
import { collectSessions, PICKER_MAX_SESSIONS, sessionRow } from "../client/sessionRows";
import type { TurnEntry } from "../client/state";
import { Deps, ScvCommand } from "./run";

/**
 * SCV: Open Session… — pick any session, stored on disk or running, and show
 * its whole transcript (`scv/session/attach` with `replay: "full"`).
 */
export const openSession: ScvCommand = {
  id: "scv.openSession",
  async run({ server, chat }: Deps) {
    const store = await server.ensure();
    const { sessions, more } = await collectSessions((p) => store.conn.listSessionPage(p));
    if (sessions.length === 0) {
      void vscode.window.showInformationMessage("SCV: no stored session yet; start one with “SCV: New Session”.");
      return;
    }
    const now = new Date();
    const firstPrompt = (id: string) =>
      store.stateOf(id)?.transcript.find((e): e is TurnEntry => e.kind === "turn" && !!e.prompt)?.prompt;
    const pick = await vscode.window.showQuickPick(
      sessions.map((s) => sessionRow(s, now, firstPrompt(s.sessionId))),
      {
        title: more ? `SCV sessions (newest ${PICKER_MAX_SESSIONS})` : "SCV sessions",
        placeHolder: "Session to open, newest first",
        matchOnDescription: true,
        matchOnDetail: true,
      },
    );
    if (!pick) return;
    const current = store.sessionId;
    if (current && current !== pick.sessionId && !store.state?.closed) {
      await store.detach().catch(() => undefined); // stop following the one we leave
    }
    await store.open(pick.sessionId, pick.title);
    await chat.reveal();
  },
};
