// Re-attach after a hidden view: the window stops following the session
// (scv/session/detach), the turn goes on in the server, and on reopening
// scv/session/attach {afterSeq} replays exactly what was missed.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { SessionState, TurnEntry } from "../../src/client/state";
import type { FakeOpenAI } from "../fake-openai";
import { ScvProcess, WAIT_MS, withServer } from "../helpers/scv";

/** What two clients must agree on, whatever path they took. */
function comparable(s: SessionState) {
  return {
    status: s.status,
    seq: s.seq,
    queue: s.queue,
    approvals: s.approvals,
    transcript: s.transcript.map((e) => (e.kind === "turn" ? { ...e, prompt: undefined } : e)),
  };
}

describe("integration: re-attach after a hidden view", () => {
  let fake: FakeOpenAI;
  let scv: ScvProcess;
  withServer({ files: { "notes.md": "# notes\n" } }, (f, s) => {
    fake = f;
    scv = s;
  });

  it("replays the events missed while detached, once each, and ends where the server is", async () => {
    fake.script(
      { text: ["Reading ", "the notes", " first."], hold: true, toolCalls: [{ id: "call_r", name: "read_file", arguments: { path: "notes.md" } }] },
      { text: ["They hold ", "a heading only."] },
    );
    const store = scv.store();
    const { sessionId: sid } = await store.start({ cwd: scv.workspace });
    await store.sendPrompt("What do the notes say?");
    const hiddenAt = await scv.waitState(store, (s) => s.transcript.some((e) => e.kind === "turn" && e.blocks.length > 0), "the first delta");
    const seqHidden = hiddenAt.seq;

    // The view is hidden: stop following. The turn finishes meanwhile.
    await store.detach();
    const heard = scv.sessionEvents(sid).length;
    fake.release();
    await fake.waitForRequests(2);
    await waitIdle(scv, sid);
    assert.equal(scv.sessionEvents(sid).length, heard, "a detached window hears nothing");

    // Reopened: attach from the last seen event.
    const resumed = await store.refresh();
    const serverSeq = resumed?.syncSeq ?? 0;
    assert.ok(serverSeq > seqHidden, "events happened while hidden");
    const s = await scv.waitState(store, (st) => st.seq === serverSeq, "the replay");
    const got = scv.sessionEvents(sid).map((e) => e.params.seq);
    assert.deepEqual(got, got.map((_, i) => i + 1), "seq 1…N exactly once across detach and re-attach");

    const turn = s.transcript.find((e): e is TurnEntry => e.kind === "turn");
    assert.equal(turn?.status, "completed");
    assert.equal(turn?.prompt, "What do the notes say?");
    assert.deepEqual(
      turn?.blocks.map((b) => (b.kind === "text" ? b.text : b.kind === "tool" ? `${b.name}:${b.status}` : b.kind === "steer" ? b.prompt : b.text)),
      ["Reading the notes first.", "read_file:succeeded", "They hold a heading only."],
    );
    assert.equal(s.status, "idle");

    // A window that opens later and attaches from 0 rebuilds the same state.
    const late = scv.store();
    await late.attach(sid, 0);
    const lateState = await scv.waitState(late, (st) => st.seq === serverSeq, "the full replay");
    assert.deepEqual(comparable(lateState), comparable(s));

    // Re-attaching when nothing was missed replays nothing.
    const before = scv.sessionEvents(sid).length;
    await store.refresh();
    const marker = await scv.conn.listSessions(); // a round trip after any replay would have arrived
    assert.ok(marker.length >= 1);
    assert.equal(scv.sessionEvents(sid).length, before);
  });

  it("after more events than the replay ring holds, a late attach gets a gap notice, then the rest", async () => {
    const init = await scv.conn.listSessions(); // the connection is initialized
    assert.ok(Array.isArray(init));
    const pieces = 1100;
    fake.script({ text: Array.from({ length: pieces }, (_, i) => `${i} `) });
    const store = scv.store();
    const { sessionId: sid } = await store.start({ cwd: scv.workspace });
    await store.sendPrompt("count");
    const done = await scv.waitState(store, (s) => s.status === "idle" && s.lastUsage !== undefined, "the long turn");
    assert.ok(done.seq > 1024, `more events (${done.seq}) than the ring holds`);

    const late = scv.store();
    const heard = scv.events.length;
    const snap = await late.attach(sid, 0);
    const s = await scv.waitState(late, (st) => st.seq === done.seq, "the replay after the gap");
    const gap = scv.events.slice(heard).find((e) => e.method === "scv/session/gap");
    assert.ok(gap, "scv/session/gap is sent before a replay that cannot start at afterSeq + 1");
    const first = scv.events.slice(heard).find((e) => e.method !== "scv/session/gap" && e.params.sessionId === sid);
    assert.equal(first?.params.seq, gap.params.firstAvailableSeq, "the replay starts at firstAvailableSeq");
    assert.equal(snap.syncSeq, done.seq);
    assert.ok(s.transcript.some((e) => e.kind === "notice" && /could not be replayed/.test(e.text)));
    const turn = s.transcript.find((e): e is TurnEntry => e.kind === "turn");
    assert.equal(turn?.status, "completed");
    assert.equal(s.status, "idle");
  });
});


/** Waits, by asking the server on each round trip, until the session is idle (a detached client hears no events). */
async function waitIdle(scv: ScvProcess, sid: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const me = (await scv.conn.listSessions()).find((x) => x.sessionId === sid);
    if (me?.state === "idle") return;
    if (Date.now() > deadline) throw new Error(`session ${sid} still ${me?.state} after ${WAIT_MS} ms\n${scv.stderr}`);
    await new Promise((r) => setImmediate(r));
  }
}
