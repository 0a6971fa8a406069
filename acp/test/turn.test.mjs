// A streamed turn, approvals through session/request_permission (once,
// always, deny), a prompt queued while busy, and cancel.
import assert from "node:assert/strict";
import { test } from "node:test";
import * as acp from "@agentclientprotocol/sdk";
import { Agent, World, within } from "./harness.mjs";

async function withAgent(setup, body) {
  const world = await World.create(setup);
  try {
    const agent = await Agent.start(world);
    try {
      await body(world, agent);
    } finally {
      await agent.stop();
    }
  } finally {
    await world.close();
  }
}

test("initialize negotiates version 1 and advertises what scv serves", () =>
  withAgent({}, async (_w, a) => {
    assert.equal(a.init.protocolVersion, 1);
    assert.equal(a.init.agentCapabilities.loadSession, true);
    assert.equal(a.init.agentCapabilities.promptCapabilities.embeddedContext, true);
    assert.deepEqual(a.init._meta.scv, { liveOutputBytes: 65536, liveOutputCalls: 16, toolOutputIntervalMs: 50 });
    assert.deepEqual(a.init.authMethods, []);
  }));

test("a streamed turn: chunks in order, then end_turn", () =>
  withAgent({ replies: [{ text: ["Hel", "lo ", "world"] }] }, async (_w, a) => {
    const { sessionId } = await a.newSession();
    const res = await a.prompt(sessionId, "hi");
    assert.equal(res.stopReason, "end_turn");
    assert.equal(a.text(sessionId), "Hello world");
  }));

test("an edit is approved through request_permission, with its diff", () =>
  withAgent(
    {
      files: { "a.txt": "old line\n" },
      replies: [{ toolCalls: [{ id: "e1", name: "edit_file", arguments: { path: "a.txt", old: "old line", new: "new line" } }] }, { text: "edited" }],
    },
    async (w, a) => {
      const { sessionId } = await a.newSession();
      const turn = a.prompt(sessionId, "edit it");
      const { u } = await a.update("tool_call", (u) => u.toolCallId === "e1");
      assert.equal(u.kind, "edit");
      assert.equal(u.status, "pending");
      assert.deepEqual(u.content, [{ type: "diff", path: `${w.workspace}/a.txt`, oldText: "old line", newText: "new line" }]);
      assert.deepEqual(u.locations, [{ path: `${w.workspace}/a.txt` }]);
      const p = await a.permission(0);
      assert.deepEqual(p.params.options.map((o) => o.kind), ["allow_once", "allow_always", "reject_once"]);
      assert.equal(p.params.toolCall.toolCallId, "e1");
      p.answer(p.params.options.find((o) => o.kind === "allow_once").optionId);
      await a.update("tool_call_update", (u) => u.toolCallId === "e1" && u.status === "completed");
      assert.equal((await turn).stopReason, "end_turn");
      assert.equal(w.read("a.txt"), "new line\n");
    },
  ));

test("allow_always approves the rest of the session's calls of that tool", () =>
  withAgent(
    {
      replies: [
        { toolCalls: [{ id: "w1", name: "write_file", arguments: { path: "one.txt", content: "1" } }] },
        { text: "one" },
        { toolCalls: [{ id: "w2", name: "write_file", arguments: { path: "two.txt", content: "2" } }] },
        { text: "two" },
      ],
    },
    async (w, a) => {
      const { sessionId } = await a.newSession();
      const first = a.prompt(sessionId, "write one");
      const p = await a.permission(0);
      p.answer(p.params.options.find((o) => o.kind === "allow_always").optionId);
      assert.equal((await first).stopReason, "end_turn");
      assert.equal((await a.prompt(sessionId, "write two")).stopReason, "end_turn");
      assert.equal(a.permissions.length, 1, "the second write was not asked about");
      assert.equal(w.read("one.txt"), "1");
      assert.equal(w.read("two.txt"), "2");
    },
  ));

test("reject_once denies: the call fails and the file is untouched", () =>
  withAgent(
    {
      files: { "keep.txt": "keep\n" },
      replies: [{ toolCalls: [{ id: "d1", name: "write_file", arguments: { path: "keep.txt", content: "gone" } }] }, { text: "ok" }],
    },
    async (w, a) => {
      const { sessionId } = await a.newSession();
      const turn = a.prompt(sessionId, "overwrite");
      const p = await a.permission(0);
      p.answer(p.params.options.find((o) => o.kind === "reject_once").optionId);
      await a.update("tool_call_update", (u) => u.toolCallId === "d1" && u.status === "failed");
      assert.equal((await turn).stopReason, "end_turn");
      assert.equal(w.read("keep.txt"), "keep\n");
    },
  ));

test("a prompt sent while busy is queued and answered when its own turn ends; cancel ends only the running one", () =>
  withAgent({ replies: [{ text: ["first", " never"], hold: true }, { text: "second" }] }, async (w, a) => {
    const { sessionId } = await a.newSession();
    const order = [];
    const one = a.prompt(sessionId, "one").then((r) => (order.push("one"), r));
    await a.update("agent_message_chunk", (u) => u.content.text === "first");
    const two = a.prompt(sessionId, "two").then((r) => (order.push("two"), r));
    // The second prompt is in the session's queue: the provider got one request.
    assert.equal(w.fake.requests.length, 1);
    await a.notify(acp.methods.agent.session.cancel, { sessionId });
    assert.equal((await one).stopReason, "cancelled");
    w.fake.release();
    assert.equal((await two).stopReason, "end_turn");
    assert.deepEqual(order, ["one", "two"]);
    assert.match(a.text(sessionId), /second$/);
  }));

test("$/cancel_request cancels an in-flight prompt: the running one's turn, and a queued one leaves the queue", () =>
  withAgent({ replies: [{ text: ["first", " never"], hold: true }, { text: "third" }] }, async (w, a) => {
    const { sessionId } = await a.newSession();
    const running = new AbortController();
    const queued = new AbortController();
    const S = acp.methods.agent.session;
    const one = a.request(S.prompt, { sessionId, prompt: [{ type: "text", text: "one" }] }, { cancellationSignal: running.signal });
    await a.update("agent_message_chunk", (u) => u.content.text === "first");
    const two = a.request(S.prompt, { sessionId, prompt: [{ type: "text", text: "two" }] }, { cancellationSignal: queued.signal });
    const three = a.prompt(sessionId, "three");
    queued.abort();
    assert.equal((await within(two, "the queued prompt's answer")).stopReason, "cancelled");
    running.abort();
    assert.equal((await within(one, "the running prompt's answer")).stopReason, "cancelled");
    w.fake.release();
    assert.equal((await three).stopReason, "end_turn");
    assert.equal(w.fake.requests.length, 2, "the cancelled queued prompt never reached the provider");
  }));
