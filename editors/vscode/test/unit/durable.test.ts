// Durable sessions in the reducer: replays from a session's file have seq holes
// (deltas are not stored), turns carry their prompt, and a restored session says
// what its restart interrupted.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { reduce, reduceAll } from "../../src/client/reducer";
import type { Action, SessionState, TurnEntry } from "../../src/client/state";
import { ev, load, snapshot } from "../helpers/fixtures";

function turns(s: SessionState): TurnEntry[] {
  return s.transcript.filter((e): e is TurnEntry => e.kind === "turn");
}

function notices(s: SessionState): string[] {
  return s.transcript.flatMap((e) => (e.kind === "notice" ? [e.text] : []));
}

const usage = { inputTokens: 3, outputTokens: 4 };

/**
 * A full replay of a week-old session restored after a crash: two turns, the
 * second cut off by the crash; the stored records skip the deltas' seqs, and the
 * snapshot's seq is past the last record (seq reservations).
 */
const restoredReplay = () => load("restored.jsonl");

describe("reducer: holes in replayed events", () => {
  it("a full replay with seq holes draws every stored event and asks for no re-sync", () => {
    const s = reduceAll(undefined, restoredReplay());
    assert.equal(s.resync, undefined);
    assert.equal(s.seq, 4098);
    assert.deepEqual(turns(s).map((t) => [t.turnId, t.prompt, t.status]), [
      ["t1", "Fix the greeting", "completed"],
      ["t2", "Now the farewell", "failed"],
    ]);
    assert.deepEqual(s.queue.entries.map((e) => e.queueId), ["q1"], "the snapshot's queue, not doubled by the replay");
    assert.equal(s.queue.paused, true);
    assert.equal(s.status, "idle");
  });

  it("the first live event after a replay that ended in a hole is no hole", () => {
    const s0 = reduceAll(undefined, restoredReplay()); // replay ended at 4098, snapshot at 4110
    const s1 = reduce(s0, ev("scv/session/paused", { sessionId: "s1", seq: 4111, paused: false }));
    assert.equal(s1.resync, undefined);
    assert.equal(s1.seq, 4111);
    assert.equal(s1.queue.paused, false);
  });

  it("live events still re-sync on a hole", () => {
    const s0 = reduceAll(undefined, restoredReplay());
    const s1 = reduce(s0, ev("scv/session/paused", { sessionId: "s1", seq: 4111, paused: false }));
    const s2 = reduce(s1, ev("scv/turn/started", { sessionId: "s1", seq: 4113, turnId: "t3", prompt: "x" }));
    assert.deepEqual(s2.resync, { reason: "hole", afterSeq: 4111 });
    assert.equal(turns(s2).length, 2, "the event past the hole waits for the replay");
  });

  it("a live event past the snapshot's seq, right after it, applies even before the replay caught up", () => {
    // A replay with its tail missing (deltas): the first live event is the snapshot's seq + 1.
    const s = reduceAll(undefined, [
      { type: "snapshot", snapshot: snapshot({ seq: 30 }), afterSeq: 0 },
      ev("scv/turn/started", { sessionId: "s1", seq: 2, turnId: "t1", prompt: "p" }),
      ev("scv/turn/completed", { sessionId: "s1", seq: 20, turnId: "t1", steps: 1, usage }),
      ev("scv/turn/started", { sessionId: "s1", seq: 31, turnId: "t2", prompt: "q" }),
    ]);
    assert.equal(s.resync, undefined);
    assert.equal(s.status, "running");
    assert.equal(s.turnId, "t2");
  });
});

describe("reducer: the prompt of scv/turn/started", () => {
  it("shows the prompt of a turn another window started", () => {
    const s = reduceAll(undefined, [
      { type: "snapshot", snapshot: snapshot({ seq: 0 }) },
      ev("scv/turn/started", { sessionId: "s1", seq: 1, turnId: "t1", prompt: "from elsewhere" }),
    ]);
    assert.equal(turns(s)[0].prompt, "from elsewhere");
  });

  it("keeps its context attachments", () => {
    const [t1] = turns(reduceAll(undefined, restoredReplay()));
    assert.deepEqual(t1.context?.map((c) => c.uri), ["file:///work/demo/hello.txt"]);
  });

  it("the local echo and the event show the prompt once, in either order", () => {
    const started = ev("scv/turn/started", { sessionId: "s1", seq: 1, turnId: "t1", prompt: "mine" });
    const echo: Action = { type: "prompt", prompt: "mine", result: { status: "started", turnId: "t1" } };
    for (const order of [[echo, started], [started, echo]]) {
      const s = reduceAll(undefined, [{ type: "snapshot", snapshot: snapshot({ seq: 0 }) }, ...order]);
      assert.equal(turns(s).length, 1);
      assert.equal(turns(s)[0].prompt, "mine");
      assert.deepEqual(s.turnPrompts, {});
    }
  });

  it("an old server's turn/started without a prompt still takes the local echo", () => {
    const s = reduceAll(undefined, [
      { type: "snapshot", snapshot: snapshot({ seq: 0 }) },
      { type: "prompt", prompt: "mine", result: { status: "started", turnId: "t1" } },
      ev("scv/turn/started", { sessionId: "s1", seq: 1, turnId: "t1" }),
    ]);
    assert.equal(turns(s)[0].prompt, "mine");
  });
});

describe("reducer: restored, renamed, interrupted", () => {
  it("a restored session says what was interrupted and how to resume", () => {
    const s = reduceAll(undefined, restoredReplay());
    const text = notices(s).find((n) => /restored after a restart/i.test(n));
    assert.ok(text, notices(s).join("\n"));
    assert.match(text, /turn t2 was interrupted/);
    assert.match(text, /1 pending approval was cancelled/);
    assert.match(text, /1 queued prompt\b/);
    assert.match(text, /paused/);
    assert.match(text, /SCV: Resume Queue/);
  });

  it("a live restored event pauses the queue", () => {
    const s = reduceAll(undefined, [
      { type: "snapshot", snapshot: snapshot({ seq: 0 }) },
      ev("scv/session/restored", { sessionId: "s1", seq: 1, cancelledApprovals: [], queued: 2, paused: true }),
    ]);
    assert.equal(s.queue.paused, true);
    assert.match(notices(s).join("\n"), /2 queued prompts, paused/);
  });

  it("the title comes from the snapshot and follows renames, replayed or live", () => {
    const s0 = reduceAll(undefined, restoredReplay());
    assert.equal(s0.title, "Fix the greeting");
    const s1 = reduce(s0, ev("scv/session/renamed", { sessionId: "s1", seq: 4111, title: "Greetings" }));
    assert.equal(s1.title, "Greetings");
    const replayed = reduceAll(undefined, [
      { type: "snapshot", snapshot: snapshot({ seq: 9 }), afterSeq: 0 },
      ev("scv/session/renamed", { sessionId: "s1", seq: 5, title: "Renamed once" }),
    ]);
    assert.equal(replayed.title, "Renamed once");
  });

  it("a response cut off by the restart is kept and marked", () => {
    const s = reduceAll(undefined, restoredReplay());
    const t2 = turns(s)[1];
    assert.deepEqual(t2.blocks, [{ kind: "text", text: "Half an ans", done: true, interrupted: true }]);
    assert.deepEqual(t2.failure, { code: "interrupted", message: "scv stopped while this turn ran" });
  });
});
