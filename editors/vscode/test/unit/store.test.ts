import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ScvConnection, scvErrorCode } from "../../src/client/connection";
import type { QueueEntry } from "../../src/client/protocol";
import { QueueConflictError, SessionStore } from "../../src/client/store";
import { appError, FakePeer, until } from "../helpers/fakePeer";
import { snapshot } from "../helpers/fixtures";

const entry = (queueId: string, revision = 1, prompt = queueId): QueueEntry => ({ queueId, revision, prompt, submitter: "1" });

describe("SessionStore", () => {
  it("re-attaches from its last seq after a lagged notice and applies the replay", async () => {
    let replay: (() => void) | undefined;
    const peer: FakePeer = new FakePeer({
      "scv/session/start": () => snapshot({ seq: 0 }),
      "scv/session/attach": (p) => {
        assert.deepEqual(p, { sessionId: "s1", afterSeq: 1 });
        // The replay follows the reply, as on the wire.
        replay = () => {
          peer.emit("scv/assistant/delta", { sessionId: "s1", seq: 2, turnId: "t1", content: "missed " });
          peer.emit("scv/assistant/delta", { sessionId: "s1", seq: 3, turnId: "t1", content: "text" });
        };
        return snapshot({ seq: 3, state: "running", turnId: "t1" });
      },
    });
    const store = new SessionStore(new ScvConnection(peer));
    await store.start({ cwd: "/work/demo" });
    peer.emit("scv/turn/started", { sessionId: "s1", seq: 1, turnId: "t1" });
    peer.emit("scv/session/lagged", { sessionId: "s1", missed: 2 });
    await until(store, () => replay !== undefined && store.state?.resync === undefined, "the re-attach");
    replay!();
    const s = store.state!;
    assert.equal(s.seq, 3);
    const turn = s.transcript.find((e) => e.kind === "turn");
    assert.ok(turn && turn.kind === "turn");
    assert.deepEqual(turn.blocks, [{ kind: "text", text: "missed text", done: false }]);
    assert.equal(peer.called("scv/session/attach").length, 1);
  });

  it("two listeners on one connection both see every event", async () => {
    const peer = new FakePeer({ "scv/session/start": () => snapshot({ seq: 0 }) });
    const conn = new ScvConnection(peer);
    const seen: string[] = [];
    conn.onEvent((e) => seen.push(`a:${e.method}`));
    const store = new SessionStore(conn);
    await store.start({ cwd: "/work/demo" });
    peer.emit("scv/turn/started", { sessionId: "s1", seq: 1, turnId: "t1" });
    assert.deepEqual(seen, ["a:scv/turn/started"]);
    assert.equal(store.state!.status, "running");
  });

  it("ignores events of sessions it does not follow", async () => {
    const peer = new FakePeer({ "scv/session/start": () => snapshot({ seq: 0 }) });
    const store = new SessionStore(new ScvConnection(peer));
    await store.start({ cwd: "/work/demo" });
    const before = store.state;
    peer.emit("scv/turn/started", { sessionId: "other", seq: 1, turnId: "t1" });
    assert.equal(store.state, before);
  });

  it("a queue conflict re-reads the queue and throws QueueConflictError", async () => {
    const peer = new FakePeer({
      "scv/session/start": () => snapshot({ seq: 0, state: "running", turnId: "t1", queue: { entries: [entry("q1")], paused: false } }),
      "scv/queue/update": () => {
        throw appError("queue_conflict");
      },
      "scv/queue/list": () => ({ entries: [entry("q1", 3, "edited elsewhere")], paused: false }),
    });
    const store = new SessionStore(new ScvConnection(peer));
    await store.start({ cwd: "/work/demo" });
    await assert.rejects(store.updateQueued("q1", "mine"), QueueConflictError);
    assert.deepEqual(peer.called("scv/queue/update")[0].params, { sessionId: "s1", queueId: "q1", revision: 1, prompt: "mine" });
    assert.deepEqual(store.state!.queue.entries, [entry("q1", 3, "edited elsewhere")]);
  });

  it("moves up before the previous entry, down before the one after next or to the end", async () => {
    const peer = new FakePeer({
      "scv/session/start": () => snapshot({ seq: 0, queue: { entries: [entry("a"), entry("b", 2), entry("c")], paused: true } }),
      "scv/queue/move": (p) => ({ queueId: p.queueId, revision: p.revision + 1, position: 0 }),
    });
    const store = new SessionStore(new ScvConnection(peer));
    await store.start({ cwd: "/work/demo" });
    assert.equal(await store.moveQueued("b", -1), true);
    assert.equal(await store.moveQueued("a", 1), true);
    assert.equal(await store.moveQueued("b", 1), true);
    assert.equal(await store.moveQueued("a", -1), false, "nothing above the first");
    assert.equal(await store.moveQueued("c", 1), false, "nothing below the last");
    // The peer sends no queue/moved events, so every move starts from a, b, c.
    assert.deepEqual(
      peer.called("scv/queue/move").map((c) => c.params),
      [
        { sessionId: "s1", queueId: "b", revision: 2, beforeQueueId: "a" },
        { sessionId: "s1", queueId: "a", revision: 1, beforeQueueId: "c" },
        { sessionId: "s1", queueId: "b", revision: 2 },
      ],
    );
  });

  it("moving the next-to-last entry down sends no beforeQueueId (to the end)", async () => {
    const peer = new FakePeer({
      "scv/session/start": () => snapshot({ seq: 0, queue: { entries: [entry("a"), entry("b")], paused: true } }),
      "scv/queue/move": (p) => ({ queueId: p.queueId, revision: p.revision + 1, position: 1 }),
    });
    const store = new SessionStore(new ScvConnection(peer));
    await store.start({ cwd: "/work/demo" });
    await store.moveQueued("a", 1);
    assert.deepEqual(peer.called("scv/queue/move")[0].params, { sessionId: "s1", queueId: "a", revision: 1 });
  });

  it("an approval answered elsewhere first resolves to false", async () => {
    const peer = new FakePeer({
      "scv/session/start": () => snapshot({ seq: 0 }),
      "scv/approval/resolve": () => {
        throw appError("approval_not_found");
      },
    });
    const store = new SessionStore(new ScvConnection(peer));
    await store.start({ cwd: "/work/demo" });
    assert.equal(await store.resolve("a1", "approve"), false);
  });

  it("fires onApproval once per new live approval", async () => {
    const peer = new FakePeer({ "scv/session/start": () => snapshot({ seq: 0 }) });
    const store = new SessionStore(new ScvConnection(peer));
    const seen: string[] = [];
    store.onApproval((a) => seen.push(a.approvalId));
    await store.start({ cwd: "/work/demo" });
    peer.emit("scv/turn/started", { sessionId: "s1", seq: 1, turnId: "t1" });
    const req = { sessionId: "s1", turnId: "t1", approvalId: "a1", callId: "c1", name: "shell", risk: "exec", cwd: "/w", summary: "ls" };
    peer.emit("scv/approval/requested", { ...req, seq: 2 });
    peer.emit("scv/approval/requested", { ...req, seq: 2 });
    peer.emit("scv/tool/started", { sessionId: "s1", seq: 3, turnId: "t1", callId: "c0", name: "read_file" });
    assert.deepEqual(seen, ["a1"]);
  });

  it("a session gone from the server after a restart is marked lost", async () => {
    let gone = false;
    const peer = new FakePeer({
      "scv/session/start": () => snapshot({ seq: 0 }),
      "scv/session/attach": () => {
        if (gone) throw appError("session_not_found");
        return snapshot({ seq: 0 });
      },
    });
    const store = new SessionStore(new ScvConnection(peer));
    await store.start({ cwd: "/work/demo" });
    gone = true;
    await assert.rejects(store.refresh(), (err) => scvErrorCode(err) === "session_not_found");
    assert.equal(store.state!.closed, true);
  });

  it("sends optional params absent, not null", async () => {
    const peer = new FakePeer({
      "scv/session/start": (p) => {
        assert.deepEqual(p, { cwd: "/work/demo", approvalPolicy: "on-risk" });
        return snapshot({ seq: 0 });
      },
      "scv/turn/start": () => ({ status: "started", turnId: "t1" }),
      "scv/session/list": () => ({ sessions: [] }),
    });
    const store = new SessionStore(new ScvConnection(peer));
    await store.start({ cwd: "/work/demo", approvalPolicy: "on-risk", model: undefined });
    await store.sendPrompt("hi");
    assert.deepEqual(peer.called("scv/turn/start")[0].params, { sessionId: "s1", prompt: "hi" });
    assert.deepEqual(await store.conn.listSessions(), []);
    assert.equal(peer.called("scv/session/list")[0].params, undefined);
  });
});
