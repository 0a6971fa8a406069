// The prompt queue against the real server: prompts sent while a turn runs are
// queued; edits with a stale revision get queue_conflict and the client re-syncs
// from scv/queue/list; move and remove; pause; the queue drains by itself.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { scvErrorCode } from "../../src/client/connection";
import type { TurnEntry } from "../../src/client/state";
import { QueueConflictError } from "../../src/client/store";
import type { FakeOpenAI } from "../fake-openai";
import { recordFixture, ScvProcess, withServer } from "../helpers/scv";

describe("integration: queue edits with a conflict", () => {
  let fake: FakeOpenAI;
  let scv: ScvProcess;
  withServer({}, (f, s) => {
    fake = f;
    scv = s;
  });

  it("queues while running, refuses a stale revision, re-syncs, moves, removes and drains", async () => {
    fake.script(
      { text: ["working on the first ", "prompt"], hold: true },
      { text: "answer to third (edited)" },
      { text: "answer to fourth" },
    );
    const store = scv.store();
    const start = await scv.conn.startSession({ cwd: scv.workspace });
    const sid = start.sessionId;
    await store.attach(sid);

    const first = await store.sendPrompt("first");
    assert.equal(first.status, "started");
    await fake.waitForHeld();

    const second = await store.sendPrompt("second");
    const third = await store.sendPrompt("third");
    const fourth = await store.sendPrompt("fourth");
    assert.equal(second.status, "queued");
    assert.equal(third.status, "queued");
    assert.equal(fourth.status, "queued");
    if (second.status !== "queued" || third.status !== "queued" || fourth.status !== "queued") return;
    assert.deepEqual([second.position, third.position, fourth.position], [0, 1, 2], "positions count from 0");
    assert.equal(second.entry.prompt, "second");

    let s = await scv.waitState(store, (st) => st.queue.entries.length === 3, "three queued entries");
    assert.deepEqual(s.queue.entries.map((e) => e.prompt), ["second", "third", "fourth"]);

    // Another window edits "third": its revision moves on.
    const q3 = s.queue.entries[1];
    const edited = await scv.conn.updateQueue(sid, q3.queueId, q3.revision, "third (edited)");
    assert.equal(edited.revision, q3.revision + 1);

    // The same edit again with the old revision is refused and changes nothing.
    await assert.rejects(scv.conn.updateQueue(sid, q3.queueId, q3.revision, "stale write"), (err: any) => {
      assert.equal(err.code, -32000);
      assert.equal(scvErrorCode(err), "queue_conflict");
      return true;
    });
    const listed = await scv.conn.listQueue(sid);
    assert.deepEqual(listed.entries.map((e) => e.prompt), ["second", "third (edited)", "fourth"]);

    // A window that missed the update (its copy is stale) gets QueueConflictError and
    // the fresh queue from scv/queue/list.
    await scv.waitState(store, (st) => st.queue.entries[1]?.revision === edited.revision, "queue/updated");
    store.dispatch(sid, { type: "queue", queue: { entries: s.queue.entries, paused: false } });
    await assert.rejects(store.updateQueued(q3.queueId, "my late edit"), QueueConflictError);
    s = store.state!;
    assert.deepEqual(s.queue, await scv.conn.listQueue(sid), "re-synced from scv/queue/list");
    assert.equal(s.queue.entries[1].prompt, "third (edited)");

    // Move "fourth" up, then remove "second".
    const q4 = s.queue.entries[2];
    assert.equal(await store.moveQueued(q4.queueId, -1), true);
    s = await scv.waitState(store, (st) => st.queue.entries[1]?.queueId === q4.queueId, "queue/moved");
    assert.deepEqual(s.queue.entries.map((e) => e.prompt), ["second", "fourth", "third (edited)"]);
    await store.removeQueued(s.queue.entries[0].queueId);
    s = await scv.waitState(store, (st) => st.queue.entries.length === 2, "queue/removed");
    assert.deepEqual(s.queue.entries.map((e) => e.prompt), ["fourth", "third (edited)"]);
    assert.deepEqual(s.queue, await scv.conn.listQueue(sid), "the client's queue matches the server's");

    // Move "third (edited)" up to the front, so the queue drains third then fourth.
    await store.moveQueued(s.queue.entries[1].queueId, -1);
    await scv.waitState(store, (st) => st.queue.entries[0]?.prompt === "third (edited)", "queue/moved to the front");

    // Paused: the running turn ends, the queue stays.
    await store.setPaused(true);
    await scv.waitState(store, (st) => st.queue.paused, "session/paused");
    fake.release();
    s = await scv.waitState(store, (st) => st.status === "idle", "first turn's end");
    assert.equal(s.queue.entries.length, 2, "a paused queue starts nothing");

    // Resumed: both queued prompts run, in order, each shown with its prompt.
    await store.setPaused(false);
    s = await scv.waitState(
      store,
      (st) => st.queue.entries.length === 0 && st.status === "idle" && st.transcript.filter((e) => e.kind === "turn" && e.status === "completed").length === 3,
      "the queue to drain",
    );
    const prompts = s.transcript.filter((e): e is TurnEntry => e.kind === "turn").map((t) => t.prompt);
    assert.deepEqual(prompts, ["first", "third (edited)", "fourth"]);
    const methods = scv.sessionEvents(sid).map((e) => e.method);
    const dequeued = methods.indexOf("scv/queue/dequeued");
    assert.ok(dequeued > 0 && methods[dequeued + 1] === "scv/turn/started", "queue/dequeued then turn/started");
    assert.equal(fake.requests[1].messages.at(-1).content, "third (edited)", "the edited text is what the model got");
    recordFixture("queue.jsonl", [{ result: start }, ...scv.sessionEvents(sid)]);
  });
});
