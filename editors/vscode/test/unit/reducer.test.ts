import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { mcpLines, reduce, reduceAll, summarize } from "../../src/client/reducer";
import type { Action, SessionState, ToolBlock, TurnEntry } from "../../src/client/state";
import { ev, eventsOf, load, snapshot } from "../helpers/fixtures";

function turns(s: SessionState): TurnEntry[] {
  return s.transcript.filter((e): e is TurnEntry => e.kind === "turn");
}

function tool(s: SessionState, callId: string): ToolBlock {
  for (const t of turns(s)) for (const b of t.blocks) if (b.kind === "tool" && b.callId === callId) return b;
  assert.fail(`no tool card ${callId}`);
}

function texts(t: TurnEntry): string[] {
  return t.blocks.flatMap((b) => (b.kind === "text" ? [b.text] : []));
}

/** Drops the bookkeeping maps that legitimately differ between equivalent paths. */
function view(s: SessionState) {
  return {
    status: s.status,
    turnId: s.turnId,
    seq: s.seq,
    queue: s.queue,
    approvals: s.approvals,
    transcript: s.transcript,
    lastUsage: s.lastUsage,
    closed: s.closed,
    resync: s.resync,
  };
}

describe("reducer: a full turn with a diff approval", () => {
  const actions = load("full-turn.jsonl");

  it("builds the transcript, the tool card and the usage", () => {
    const s = reduceAll(undefined, actions);
    assert.equal(s.status, "idle");
    assert.equal(s.turnId, undefined);
    assert.equal(s.seq, 13);
    assert.deepEqual(s.approvals, []);
    const [t] = turns(s);
    assert.equal(t.turnId, "t1");
    assert.equal(t.prompt, "Fix the greeting");
    assert.equal(t.status, "completed");
    assert.deepEqual(t.usage, { inputTokens: 120, outputTokens: 34 });
    assert.equal(t.steps, 2);
    assert.deepEqual(texts(t), ["I'll edit **hello.txt**.", "Done: the greeting now says *hello, world*."]);
    assert.deepEqual(t.blocks.map((b) => b.kind), ["text", "tool", "text"]);
    const c1 = tool(s, "c1");
    assert.equal(c1.status, "succeeded");
    assert.equal(c1.output, "edited hello.txt (1 replacement)");
    assert.equal(c1.approval?.decision, "approve");
    assert.match(c1.approval?.summary ?? "", /^\+hello, world$/m);
    assert.deepEqual(s.lastUsage, { inputTokens: 120, outputTokens: 34 });
  });

  it("shows the approval as pending until it is resolved", () => {
    const upTo = actions.findIndex((a) => a.type === "event" && a.event.method === "scv/approval/requested");
    const s = reduceAll(undefined, actions.slice(0, upTo + 1));
    assert.equal(s.status, "running");
    assert.deepEqual(s.approvals.map((a) => a.approvalId), ["a1"]);
    assert.equal(tool(s, "c1").status, "awaiting-approval");
    assert.equal(summarize(s).kind, "approval");
  });

  it("streams: deltas accumulate in an open text block", () => {
    const upTo = actions.findIndex((a) => a.type === "event" && a.event.method === "scv/assistant/completed");
    const s = reduceAll(undefined, actions.slice(0, upTo));
    const [t] = turns(s);
    assert.deepEqual(t.blocks, [{ kind: "text", text: "I'll edit **hello.txt**.", done: false }]);
  });

  it("ignores an event delivered twice", () => {
    const once = reduceAll(undefined, actions);
    const twice = reduceAll(undefined, actions.flatMap((a): Action[] => (a.type === "event" ? [a, a] : [a])));
    assert.deepEqual(view(twice), view(once));
  });

  it("does not mutate the state it is given", () => {
    const before = reduceAll(undefined, actions.slice(0, 6));
    const frozen = JSON.stringify(before);
    reduceAll(before, actions.slice(6));
    assert.equal(JSON.stringify(before), frozen);
  });

  it("takes the prompt whether the reply comes before or after turn/started", () => {
    const [snap, prompt, ...rest] = actions;
    const started = rest[0];
    const s = reduceAll(undefined, [snap, started, prompt, ...rest.slice(1)]);
    assert.equal(turns(s)[0].prompt, "Fix the greeting");
  });
});

describe("reducer: re-attach with replay", () => {
  const actions = load("full-turn.jsonl");
  const events = eventsOf(actions);
  const last = reduceAll(undefined, actions);

  it("a view that re-attaches with afterSeq ends where a continuous one does", () => {
    // Hidden after seq 4; on reopening, the server answers with a snapshot at seq 13
    // and replays 5..13.
    const before = reduceAll(undefined, actions.slice(0, 2 + 4));
    assert.equal(before.seq, 4);
    const resumed = reduceAll(before, [
      { type: "snapshot", snapshot: snapshot({ seq: 13 }), afterSeq: 4 },
      ...events.slice(4),
    ]);
    assert.deepEqual(view(resumed), view(last));
  });

  it("a fresh window attaching with afterSeq 0 rebuilds the transcript, without the local prompt", () => {
    const fresh = reduceAll(undefined, [{ type: "snapshot", snapshot: snapshot({ seq: 13 }), afterSeq: 0 }, ...events]);
    const expected = structuredClone(view(last));
    const got = view(fresh);
    assert.equal(turns(fresh)[0].prompt, undefined);
    (expected.transcript[0] as TurnEntry).prompt = undefined;
    assert.deepEqual(got, expected);
  });

  it("live events that arrive before the attach reply are not applied twice by the replay", () => {
    const s0 = reduceAll(undefined, actions.slice(0, 2 + 4)); // seq 4; attach {afterSeq: 4} sent now
    const live = reduceAll(s0, events.slice(4, 7)); // 5..7 arrive live before the reply
    const resumed = reduceAll(live, [
      { type: "snapshot", snapshot: snapshot({ seq: 13 }), afterSeq: 4 },
      ...events.slice(4), // the server replays 5..13
    ]);
    assert.deepEqual(view(resumed), view(last));
  });

  it("replayed queue events do not double what the snapshot already holds", () => {
    const entry = { queueId: "q1", revision: 1, prompt: "later", submitter: "7" };
    const s = reduceAll(undefined, [
      { type: "snapshot", snapshot: snapshot({ seq: 3, state: "running", turnId: "t1", queue: { entries: [entry], paused: false } }), afterSeq: 0 },
      ev("scv/turn/started", { sessionId: "s1", seq: 1, turnId: "t1" }),
      ev("scv/queue/enqueued", { sessionId: "s1", seq: 2, entry: { ...entry, queueId: "q0" }, position: 0 }),
      ev("scv/queue/removed", { sessionId: "s1", seq: 3, queueId: "q0", revision: 1 }),
      ev("scv/queue/enqueued", { sessionId: "s1", seq: 4, entry: { ...entry, queueId: "q2" }, position: 1 }),
    ]);
    assert.deepEqual(s.queue.entries.map((e) => e.queueId), ["q1", "q2"]);
    assert.equal(s.status, "running");
    assert.equal(s.turnId, "t1");
  });

  it("a replayed turn start does not make an idle session look busy", () => {
    const s = reduceAll(undefined, [
      { type: "snapshot", snapshot: snapshot({ seq: 13 }), afterSeq: 0 },
      ...events.slice(0, 5),
    ]);
    assert.equal(s.status, "idle");
    assert.equal(turns(s)[0].status, "running"); // its end is still to be replayed
    assert.deepEqual(s.approvals, []); // a1 is not pending in the snapshot
  });
});

describe("reducer: gaps, holes and lag", () => {
  const actions = load("full-turn.jsonl");
  const events = eventsOf(actions);

  it("gap: notes the loss, resumes at firstAvailableSeq and ends turns whose end was lost", () => {
    const s = reduceAll(undefined, [
      { type: "snapshot", snapshot: snapshot({ seq: 20 }), afterSeq: 2 },
      ev("scv/session/gap", { sessionId: "s1", seq: 0, firstAvailableSeq: 14 }),
      ev("scv/turn/started", { sessionId: "s1", seq: 14, turnId: "t9" }),
      ev("scv/assistant/completed", { sessionId: "s1", seq: 15, turnId: "t9", content: "later answer" }),
      ev("scv/turn/completed", { sessionId: "s1", seq: 16, turnId: "t9", steps: 1, usage: { inputTokens: 1, outputTokens: 2 } }),
      ev("scv/turn/started", { sessionId: "s1", seq: 17, turnId: "t10" }),
      ev("scv/turn/cancelled", { sessionId: "s1", seq: 18, turnId: "t10" }),
      ev("scv/turn/started", { sessionId: "s1", seq: 19, turnId: "t11" }),
      ev("scv/assistant/delta", { sessionId: "s1", seq: 20, turnId: "t11", content: "cut short" }),
    ]);
    assert.equal(s.seq, 20);
    assert.ok(s.transcript.some((e) => e.kind === "notice" && /11 events could not be replayed/.test(e.text)));
    const byId = Object.fromEntries(turns(s).map((t) => [t.turnId, t.status]));
    // t11's end fell in no replay, and the snapshot says idle: it ended unseen.
    assert.deepEqual(byId, { t9: "completed", t10: "cancelled", t11: "unknown" });
    assert.equal(s.status, "idle");
  });

  it("hole: an event past seq+1 is not applied and asks for a re-sync from the last seq", () => {
    const s0 = reduceAll(undefined, actions.slice(0, 5));
    assert.equal(s0.seq, 3);
    const s1 = reduce(s0, events[5]);
    assert.equal(s1.seq, 3);
    assert.deepEqual(s1.resync, { reason: "hole", afterSeq: 3 });
    // Further live events wait for the replay.
    assert.equal(reduce(s1, events[6]), s1);
  });

  it("lagged: asks for a re-sync, drops events until the snapshot, then replays cleanly", () => {
    const s0 = reduceAll(undefined, actions.slice(0, 6)); // seq 4
    const lagged = reduce(s0, ev("scv/session/lagged", { sessionId: "s1", missed: 5 }));
    assert.deepEqual(lagged.resync, { reason: "lagged", afterSeq: 4 });
    assert.ok(lagged.transcript.some((e) => e.kind === "notice" && /Fell behind by 5 events/.test(e.text)));
    const during = reduce(lagged, events[10]);
    assert.equal(during, lagged);
    const after = reduceAll(during, [{ type: "snapshot", snapshot: snapshot({ seq: 13 }), afterSeq: 4 }, ...events.slice(4)]);
    assert.equal(after.resync, undefined);
    assert.equal(after.seq, 13);
    assert.equal(turns(after)[0].status, "completed");
    assert.deepEqual(texts(turns(after)[0]), ["I'll edit **hello.txt**.", "Done: the greeting now says *hello, world*."]);
  });

  it("a re-sync without replay says events were skipped", () => {
    const s0 = reduceAll(undefined, actions.slice(0, 4));
    const s1 = reduce(s0, { type: "snapshot", snapshot: snapshot({ seq: 13 }) });
    assert.equal(s1.seq, 13);
    assert.ok(s1.transcript.some((e) => e.kind === "notice" && /skipped/.test(e.text)));
    assert.equal(turns(s1)[0].status, "unknown");
  });
});

describe("reducer: approvals", () => {
  const base = (): Action[] => [
    { type: "snapshot", snapshot: snapshot({ seq: 0 }) },
    ev("scv/turn/started", { sessionId: "s1", seq: 1, turnId: "t1" }),
    ev("scv/tool/proposed", { sessionId: "s1", seq: 2, turnId: "t1", callId: "c1", name: "shell", arguments: '{"command":"make"}' }),
    ev("scv/approval/requested", {
      sessionId: "s1", seq: 3, turnId: "t1", approvalId: "a1", callId: "c1", name: "shell", risk: "exec", cwd: "/work/demo", summary: "make",
    }),
  ];

  it("resolved in another window: the pending prompt goes, the card shows the decision", () => {
    const s = reduceAll(undefined, [...base(), ev("scv/approval/resolved", { sessionId: "s1", seq: 4, turnId: "t1", approvalId: "a1", decision: "deny" })]);
    assert.deepEqual(s.approvals, []);
    assert.equal(tool(s, "c1").status, "denied");
    assert.equal(tool(s, "c1").approval?.decision, "deny");
    // A denied call reports a failed result; it stays "denied".
    const s2 = reduce(s, ev("scv/tool/completed", { sessionId: "s1", seq: 5, turnId: "t1", callId: "c1", name: "shell", success: false, output: "denied", truncated: false }));
    assert.equal(tool(s2, "c1").status, "denied");
  });

  it("a cancelled turn ends its pending approvals and abandons its open calls", () => {
    const s = reduceAll(undefined, [...base(), ev("scv/turn/cancelled", { sessionId: "s1", seq: 4, turnId: "t1" })]);
    assert.deepEqual(s.approvals, []);
    assert.equal(s.status, "idle");
    assert.equal(tool(s, "c1").status, "abandoned");
    assert.equal(turns(s)[0].status, "cancelled");
  });

  it("pending approvals of a snapshot get cards when nothing is replayed", () => {
    const pending = {
      sessionId: "s1", seq: 7, turnId: "t4", approvalId: "a4", callId: "c4", name: "write_file", risk: "write" as const, cwd: "/work/demo", summary: "--- a/x\n+++ b/x\n",
    };
    const s = reduce(undefined, { type: "snapshot", snapshot: snapshot({ seq: 7, state: "running", turnId: "t4", pendingApprovals: [pending] }) });
    assert.equal(s.status, "running");
    assert.deepEqual(s.approvals.map((a) => a.approvalId), ["a4"]);
    assert.equal(tool(s, "c4").status, "awaiting-approval");
    assert.equal(summarize(s).kind, "approval");
  });

  it("turn failure keeps its code and message", () => {
    const s = reduceAll(undefined, [...base(), ev("scv/turn/failed", { sessionId: "s1", seq: 4, turnId: "t1", code: "provider_auth", message: "401 from provider" })]);
    assert.deepEqual(turns(s)[0].failure, { code: "provider_auth", message: "401 from provider" });
    assert.equal(turns(s)[0].status, "failed");
  });
});

describe("reducer: queue events", () => {
  const actions = load("queue.jsonl");

  it("enqueue, update, move, remove, pause, dequeue in order", () => {
    const upTo = actions.findIndex((a) => a.type === "event" && a.event.method === "scv/turn/completed");
    const mid = reduceAll(undefined, actions.slice(0, upTo));
    assert.deepEqual(
      mid.queue.entries.map((e) => [e.queueId, e.revision, e.prompt]),
      [["q3", 2, "fourth"], ["q2", 2, "third, edited"]],
    );
    assert.equal(mid.queue.paused, true);
    assert.deepEqual(summarize(mid), { kind: "running", queued: 2, paused: true });

    const end = reduceAll(undefined, actions);
    assert.deepEqual(end.queue.entries.map((e) => e.queueId), ["q2"]);
    assert.equal(end.queue.paused, false);
    const t2 = turns(end).find((t) => t.turnId === "t2");
    assert.equal(t2?.prompt, "fourth", "a dequeued turn shows its queued prompt");
    assert.equal(t2?.status, "completed");
    assert.equal(end.status, "idle");
  });

  it("queue/snapshot replaces the queue; a queue/list reply too", () => {
    const s0 = reduceAll(undefined, actions.slice(0, 5));
    const fresh = [{ queueId: "q9", revision: 4, prompt: "only", submitter: "9" }];
    const s1 = reduce(s0, ev("scv/queue/snapshot", { sessionId: "s1", seq: s0.seq + 1, entries: fresh, paused: true }));
    assert.deepEqual(s1.queue, { entries: fresh, paused: true });
    const s2 = reduce(s0, { type: "queue", queue: { entries: fresh, paused: false } });
    assert.deepEqual(s2.queue, { entries: fresh, paused: false });
  });

  it("session/cleared empties transcript and queue; session/closed ends the session", () => {
    const s0 = reduceAll(undefined, actions.slice(0, 6));
    const cleared = reduce(s0, ev("scv/session/cleared", { sessionId: "s1", seq: s0.seq + 1 }));
    assert.deepEqual(cleared.queue.entries, []);
    assert.equal(turns(cleared).length, 0);
    const closed = reduce(cleared, ev("scv/session/closed", { sessionId: "s1", seq: cleared.seq + 1 }));
    assert.equal(closed.closed, true);
    assert.equal(summarize(closed).kind, "closed");
  });

  it("a queued prompt sent by this client is remembered for its turn", () => {
    const s = reduceAll(undefined, [
      { type: "snapshot", snapshot: snapshot({ seq: 1, state: "running", turnId: "t1" }) },
      { type: "prompt", prompt: "next please", result: { status: "queued", entry: { queueId: "q5", revision: 1, prompt: "next please", submitter: "3" }, position: 0 } },
      ev("scv/queue/enqueued", { sessionId: "s1", seq: 2, entry: { queueId: "q5", revision: 1, prompt: "next please", submitter: "3" }, position: 0 }),
      ev("scv/turn/completed", { sessionId: "s1", seq: 3, turnId: "t1", steps: 1, usage: { inputTokens: 1, outputTokens: 1 } }),
      ev("scv/queue/dequeued", { sessionId: "s1", seq: 4, queueId: "q5", turnId: "t2" }),
      ev("scv/turn/started", { sessionId: "s1", seq: 5, turnId: "t2", queueId: "q5" }),
    ]);
    assert.equal(turns(s).find((t) => t.turnId === "t2")?.prompt, "next please");
    assert.deepEqual(s.queue.entries, []);
    assert.deepEqual(s.queuedPrompts, {});
    assert.deepEqual(s.turnPrompts, {});
  });
});

describe("reducer: MCP servers and their tools", () => {
  it("keeps each server's last state for the status-bar tooltip", () => {
    const s = reduceAll(undefined, [
      { type: "snapshot", snapshot: snapshot({ seq: 0 }) },
      ev("scv/mcp/status", { sessionId: "s1", seq: 1, name: "tracker", state: "starting" }),
      ev("scv/mcp/status", { sessionId: "s1", seq: 2, name: "files", state: "starting" }),
      ev("scv/mcp/status", { sessionId: "s1", seq: 3, name: "tracker", state: "failed", error: "exec: not found" }),
      ev("scv/mcp/status", { sessionId: "s1", seq: 4, name: "files", state: "ready" }),
    ]);
    assert.deepEqual(mcpLines(s), ["files: ready", "tracker: failed — exec: not found"]);
    assert.deepEqual(mcpLines(reduceAll(undefined, [{ type: "snapshot", snapshot: snapshot({ seq: 0 }) }])), []);
  });

  it("renders an MCP tool call and its approval like a builtin one", () => {
    const s = reduceAll(undefined, [
      { type: "snapshot", snapshot: snapshot({ seq: 0 }) },
      ev("scv/turn/started", { sessionId: "s1", seq: 1, turnId: "t1", prompt: "echo" }),
      ev("scv/tool/proposed", { sessionId: "s1", seq: 2, turnId: "t1", callId: "c1", name: "mcp__everything__echo", arguments: '{"message":"hi"}' }),
      ev("scv/approval/requested", {
        sessionId: "s1", seq: 3, turnId: "t1", approvalId: "a1", callId: "c1", name: "mcp__everything__echo",
        risk: "mcp", cwd: "/work/demo", summary: "MCP server: everything\ntool: echo\narguments:\n{}",
      }),
    ]);
    assert.equal(s.approvals[0]?.risk, "mcp");
    assert.equal(tool(s, "c1").status, "awaiting-approval");
    const done = reduceAll(s, [
      ev("scv/approval/resolved", { sessionId: "s1", seq: 4, turnId: "t1", approvalId: "a1", decision: "approve" }),
      ev("scv/tool/started", { sessionId: "s1", seq: 5, turnId: "t1", callId: "c1", name: "mcp__everything__echo" }),
      ev("scv/tool/completed", { sessionId: "s1", seq: 6, turnId: "t1", callId: "c1", name: "mcp__everything__echo", success: true, output: "Echo: hi", truncated: false }),
    ]);
    assert.equal(tool(done, "c1").status, "succeeded");
  });
});
