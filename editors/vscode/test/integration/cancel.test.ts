// Cancel against the real server: the turn ends with turn/cancelled, the provider
// stream is closed, a pending approval ends with its turn, and a wrong turn id is refused.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { scvErrorCode } from "../../src/client/connection";
import type { ToolBlock, TurnEntry } from "../../src/client/state";
import type { FakeOpenAI } from "../fake-openai";
import { ScvProcess, withServer } from "../helpers/scv";

describe("integration: cancel", () => {
  let fake: FakeOpenAI;
  let scv: ScvProcess;
  withServer({}, (f, s) => {
    fake = f;
    scv = s;
  });

  it("cancels while the model streams: turn/cancelled, the stream closed, the session idle", async () => {
    fake.script({ text: ["partial answer", " that never ends"], hold: true });
    const store = scv.store();
    const { sessionId: sid } = await store.start({ cwd: scv.workspace });
    const r = await store.sendPrompt("talk for a long time");
    assert.equal(r.status, "started");
    const turnId = r.status === "started" ? r.turnId : "";
    await scv.waitState(store, (s) => s.transcript.some((e) => e.kind === "turn" && e.blocks.some((b) => b.kind === "text")), "the first delta");

    assert.equal(await store.cancel(), true);
    const s = await scv.waitState(store, (st) => st.status === "idle", "turn/cancelled");
    await fake.waitForAborted(1);

    const turn = s.transcript.find((e): e is TurnEntry => e.kind === "turn" && e.turnId === turnId);
    assert.equal(turn?.status, "cancelled");
    const ends = scv.sessionEvents(sid).filter((e) => /^scv\/turn\/(completed|cancelled|failed)$/.test(e.method));
    assert.deepEqual(ends.map((e) => e.method), ["scv/turn/cancelled"], "exactly one terminal event");
    assert.equal(await store.cancel(), false, "nothing left to cancel");

    // The session takes the next prompt normally.
    fake.script({ text: "fresh answer" });
    await store.sendPrompt("again");
    await scv.waitState(store, (st) => st.status === "idle" && st.lastUsage !== undefined, "the next turn");
  });

  it("cancelling a turn that waits for approval ends the approval with it", async () => {
    fake.script({ toolCalls: [{ id: "call_sh", name: "shell", arguments: { command: "echo hi" } }] });
    const store = scv.store();
    const { sessionId: sid } = await store.start({ cwd: scv.workspace });
    await store.sendPrompt("run something");
    const waiting = await scv.waitState(store, (s) => s.approvals.length === 1, "the approval request");
    assert.equal(waiting.approvals[0].risk, "exec");
    const approvalId = waiting.approvals[0].approvalId;

    await store.cancel();
    const s = await scv.waitState(store, (st) => st.status === "idle", "turn/cancelled");
    assert.deepEqual(s.approvals, []);
    const card = s.transcript.flatMap((e) => (e.kind === "turn" ? e.blocks : [])).find((b): b is ToolBlock => b.kind === "tool");
    assert.equal(card?.status, "abandoned");
    await assert.rejects(scv.conn.resolveApproval(sid, approvalId, "approve"), (err) => scvErrorCode(err) === "approval_not_found");
  });

  it("a turn id that is not running gets turn_not_found", async () => {
    const store = scv.store();
    const { sessionId: sid } = await store.start({ cwd: scv.workspace });
    await assert.rejects(scv.conn.cancelTurn(sid, "no-such-turn"), (err: any) => err.code === -32000 && scvErrorCode(err) === "turn_not_found");
  });
});
