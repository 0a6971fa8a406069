// The reducer over sequences recorded from the real `scv lsp` (regenerate with
// SCV_RECORD=1 npm run test:integration): replayed straight, and re-played
// through every re-attach, lag and gap a window could go through.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { reduce, reduceAll } from "../../src/client/reducer";
import type { Action, SessionState, ToolBlock, TurnEntry } from "../../src/client/state";
import type { Snapshot } from "../../src/client/protocol";
import { ev, load } from "../helpers/fixtures";

function split(name: string) {
  const actions = load(`recorded/${name}`);
  const first = actions[0];
  assert.equal(first.type, "snapshot");
  const snap = (first as Extract<Action, { type: "snapshot" }>).snapshot;
  const events = actions.filter((a): a is Extract<Action, { type: "event" }> => a.type === "event");
  return { actions, snap, events };
}

/** The snapshot the server would answer after the whole sequence. */
function finalSnapshot(start: Snapshot, end: SessionState): Snapshot {
  return { ...start, state: end.status, turnId: end.turnId, queue: end.queue, pendingApprovals: end.approvals, seq: end.seq };
}

function comparable(s: SessionState) {
  return {
    status: s.status,
    seq: s.seq,
    queue: s.queue,
    approvals: s.approvals,
    transcript: s.transcript.map((e) => (e.kind === "turn" ? { ...e, prompt: undefined } : e)),
  };
}

for (const name of ["full-turn.jsonl", "queue.jsonl"]) {
  describe(`recorded ${name}`, () => {
    const { actions, snap, events } = split(name);
    const straight = reduceAll(undefined, actions);
    const final = finalSnapshot(snap, straight);

    it("has contiguous seqs and exactly one end per turn", () => {
      assert.deepEqual(events.map((e) => e.event.params.seq), events.map((_, i) => i + 1));
      const started = events.filter((e) => e.event.method === "scv/turn/started").length;
      const ended = events.filter((e) => /^scv\/turn\/(completed|cancelled|failed)$/.test(e.event.method)).length;
      assert.equal(started, ended);
      assert.equal(straight.status, "idle");
      assert.ok(straight.transcript.every((e) => e.kind !== "turn" || e.status === "completed"));
    });

    it("re-attaching after any event (a hidden view) ends in the same state", () => {
      for (let k = 0; k <= events.length; k++) {
        const hidden = reduceAll(undefined, [{ type: "snapshot", snapshot: snap }, ...events.slice(0, k)]);
        const back = reduceAll(hidden, [{ type: "snapshot", snapshot: final, afterSeq: k }, ...events.slice(k)]);
        assert.deepEqual(comparable(back), comparable(straight), `re-attached after seq ${k}`);
      }
    });

    it("lagging after any event, then re-syncing, ends in the same state", () => {
      for (let k = 0; k < events.length; k++) {
        let s = reduceAll(undefined, [{ type: "snapshot", snapshot: snap }, ...events.slice(0, k)]);
        s = reduce(s, ev("scv/session/lagged", { sessionId: snap.sessionId, missed: 3 }));
        assert.deepEqual(s.resync, { reason: "lagged", afterSeq: k });
        // What arrived on the wire after the lag notice is dropped until the re-attach.
        s = reduceAll(s, events.slice(k + 2, k + 4));
        s = reduceAll(s, [{ type: "snapshot", snapshot: final, afterSeq: k }, ...events.slice(k)]);
        const want = comparable(straight);
        const got = comparable(s);
        // The lag notice is the only difference.
        got.transcript = got.transcript.filter((e) => !(e.kind === "notice" && /Fell behind/.test(e.text)));
        assert.deepEqual(got, want, `lagged after seq ${k}`);
      }
    });

    it("a gap leaves the session state right and no turn running", () => {
      for (let k = 0; k + 2 < events.length; k++) {
        const first = k + 2; // seq k+1 is lost
        let s = reduceAll(undefined, [{ type: "snapshot", snapshot: snap }, ...events.slice(0, k)]);
        s = reduceAll(s, [
          { type: "snapshot", snapshot: final, afterSeq: k },
          ev("scv/session/gap", { sessionId: snap.sessionId, seq: 0, firstAvailableSeq: first }),
          ...events.slice(first - 1),
        ]);
        assert.equal(s.seq, final.seq);
        assert.equal(s.status, "idle");
        assert.deepEqual(s.queue, final.queue);
        assert.deepEqual(s.approvals, []);
        assert.ok(s.transcript.every((e) => e.kind !== "turn" || e.status !== "running"), `gap at seq ${k + 1}`);
      }
    });
  });
}

describe("recorded full turn, in detail", () => {
  const s = reduceAll(undefined, load("recorded/full-turn.jsonl"));
  it("holds the edit card with its diff, decision and output", () => {
    const turn = s.transcript.find((e): e is TurnEntry => e.kind === "turn");
    assert.equal(turn?.prompt, "Please fix the greeting in hello.txt");
    const card = turn?.blocks.find((b): b is ToolBlock => b.kind === "tool");
    assert.equal(card?.name, "edit_file");
    assert.equal(card?.status, "succeeded");
    assert.equal(card?.approval?.decision, "approve");
    assert.match(card?.approval?.summary ?? "", /^\+hello, world$/m);
    assert.ok(turn?.usage);
  });
});
