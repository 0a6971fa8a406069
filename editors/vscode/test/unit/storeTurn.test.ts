// The store's calls of issue 12 and 13 over a scripted peer: the exact wire
// params, steer falling back to a queued prompt, and revert conflicts.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ScvConnection } from "../../src/client/connection";
import { SessionStore } from "../../src/client/store";
import { appError, FakePeer } from "../helpers/fakePeer";
import { snapshot } from "../helpers/fixtures";

async function running(handlers: ConstructorParameters<typeof FakePeer>[0]) {
  const peer = new FakePeer({ "scv/session/start": () => snapshot({ seq: 0 }), ...handlers });
  const store = new SessionStore(new ScvConnection(peer));
  await store.start({ cwd: "/work/demo" });
  peer.emit("scv/turn/started", { sessionId: "s1", seq: 1, turnId: "t1" });
  return { peer, store };
}

describe("SessionStore: steer", () => {
  it("sends scv/turn/steer to the running turn", async () => {
    const { peer, store } = await running({ "scv/turn/steer": () => ({}) });
    assert.deepEqual(await store.steer("only the greeting package"), { steered: true });
    assert.deepEqual(peer.called("scv/turn/steer")[0].params, { sessionId: "s1", turnId: "t1", prompt: "only the greeting package" });
  });

  it("queues the prompt when the turn ended before the steer arrived (turn_not_found)", async () => {
    const entry = { queueId: "q1", revision: 1, prompt: "p", submitter: "1" };
    const { peer, store } = await running({
      "scv/turn/steer": () => Promise.reject(appError("turn_not_found")),
      "scv/turn/start": () => ({ status: "queued", entry, position: 0 }),
    });
    const r = await store.steer("p");
    assert.deepEqual(r, { steered: false, result: { status: "queued", entry, position: 0 } });
    assert.deepEqual(peer.called("scv/turn/start")[0].params, { sessionId: "s1", prompt: "p" });
  });

  it("passes any other error on", async () => {
    const { store } = await running({ "scv/turn/steer": () => Promise.reject(appError("session_not_found")) });
    await assert.rejects(store.steer("p"), (e: any) => e.data.code === "session_not_found");
  });
});

describe("SessionStore: configure, models, allow rules", () => {
  it("configure sends only what changes; listModels keeps the provider's error", async () => {
    const { peer, store } = await running({
      "scv/session/configure": (p) => ({ model: p.model ?? "m", approvalPolicy: p.approvalPolicy ?? "on-risk" }),
      "scv/model/list": () => ({ models: [{ id: "a", source: "config" }], error: "provider: 503" }),
    });
    assert.deepEqual(await store.configure({ model: "big" }), { model: "big", approvalPolicy: "on-risk" });
    assert.deepEqual(peer.called("scv/session/configure")[0].params, { sessionId: "s1", model: "big" });
    assert.deepEqual(await store.listModels(), { models: [{ id: "a", source: "config" }], error: "provider: 503" });
    assert.deepEqual(peer.called("scv/model/list")[0].params, { sessionId: "s1" });
  });

  it("a session started with a policy shows it before any configure", async () => {
    const peer = new FakePeer({ "scv/session/start": () => snapshot({ seq: 0 }) });
    const store = new SessionStore(new ScvConnection(peer));
    await store.start({ cwd: "/work/demo", approvalPolicy: "always" });
    assert.equal(store.state?.approvalPolicy, "always");
  });

  it("allowAlways approves with allowRule and returns where the rule was written", async () => {
    const { peer, store } = await running({ "scv/approval/resolve": () => ({ ruleAddedTo: "/home/u/.config/scv/config.toml" }) });
    assert.deepEqual(await store.allowAlways("a1", "shell:go test *"), { ruleAddedTo: "/home/u/.config/scv/config.toml" });
    assert.deepEqual(peer.called("scv/approval/resolve")[0].params, { sessionId: "s1", approvalId: "a1", decision: "approve", allowRule: "shell:go test *" });
  });
});

describe("SessionStore: turn changes and revert", () => {
  it("asks for one file's texts", async () => {
    const file = { path: "notes.md", diff: "@@", before: "a\n", after: "b\n" };
    const { peer, store } = await running({ "scv/turn/changes": () => ({ files: [file] }) });
    assert.deepEqual(await store.changedFile("t1", "notes.md"), file);
    assert.deepEqual(peer.called("scv/turn/changes")[0].params, { sessionId: "s1", turnId: "t1", path: "notes.md" });
  });

  it("shows a revert's conflicts under the turn; a forced revert sends force: true", async () => {
    let force: unknown;
    const { peer, store } = await running({
      "scv/turn/revert": (p) => {
        force = p.force;
        return p.force ? { reverted: ["notes.md"], conflicts: [] } : { reverted: [], conflicts: [{ path: "notes.md", diff: "-a\n+c\n" }] };
      },
    });
    await store.revert("t1");
    assert.equal(force, undefined, "force travels only when asked");
    const turn = () => store.state!.transcript.find((e) => e.kind === "turn" && e.turnId === "t1") as any;
    assert.deepEqual(turn().revertConflicts, [{ path: "notes.md", diff: "-a\n+c\n" }]);
    await store.revert("t1", true);
    assert.equal(force, true);
    assert.equal(turn().revertConflicts, undefined);
    assert.equal(peer.called("scv/turn/revert").length, 2);
  });
});
