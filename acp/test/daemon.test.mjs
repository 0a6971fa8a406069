// An ACP window and an scv/* window (a raw LSP-framed client of
// `scv lsp`) share a session through a real daemon: an approval asked in
// both is answered in the scv/* window and withdrawn in the ACP one, and
// the other way round.
import assert from "node:assert/strict";
import { test } from "node:test";
import * as acp from "@agentclientprotocol/sdk";
import { Agent, World } from "./harness.mjs";
import { LspClient } from "./lsp-client.mjs";

test("a daemon session shared by ACP and scv/*: approvals resolve across windows", async () => {
  const w = await World.create({
    replies: [
      { toolCalls: [{ id: "s1", name: "shell", arguments: { command: "true" } }] },
      { text: "ran it" },
      { toolCalls: [{ id: "s2", name: "shell", arguments: { command: "true" } }] },
      { text: "ran again" },
    ],
  });
  let a, ed;
  try {
    await w.startDaemon();
    ed = new LspClient(w, ["lsp", "--daemon=required", "--socket", w.socket]);
    await ed.initialize();
    const snap = await ed.request("scv/session/start", { cwd: w.workspace });

    a = await Agent.start(w, ["--daemon=required", "--socket", w.socket]);
    const loaded = await a.request(acp.methods.agent.session.load, { sessionId: snap.sessionId, cwd: w.workspace, mcpServers: [] });
    assert.ok(Array.isArray(loaded.configOptions));

    // Asked in both windows; the scv/* window answers first.
    const turn = a.prompt(snap.sessionId, "run true");
    const p = await a.permission(0);
    const req = await ed.event("scv/approval/requested", (e) => e.callId === "s1");
    await ed.request("scv/approval/resolve", { sessionId: snap.sessionId, approvalId: req.approvalId, decision: "approve" });
    await a.waitFor(() => p.withdrawn, "the ACP permission request to be withdrawn");
    assert.equal((await turn).stopReason, "end_turn");

    // Started in the scv/* window, answered in the ACP one.
    const t = await ed.request("scv/turn/start", { sessionId: snap.sessionId, prompt: "from the editor" });
    await a.update("user_message_chunk", (u) => u.content.text === "from the editor");
    const p2 = await a.permission(1);
    p2.answer(p2.params.options.find((o) => o.kind === "allow_once").optionId);
    await ed.event("scv/approval/resolved", (e) => e.decision === "approve" && e.approvalId !== req.approvalId);
    await ed.event("scv/turn/completed", (e) => e.turnId === t.turnId);
    await a.update("agent_message_chunk", (u) => u.content.text === "ran again");
  } finally {
    try {
      if (a) await a.stop();
    } finally {
      if (ed) await ed.stop();
      await w.close();
    }
  }
});
