// Config options and modes, and the session lifecycle: list, load (with
// its replay), resume (without), close.
import assert from "node:assert/strict";
import { test } from "node:test";
import * as acp from "@agentclientprotocol/sdk";
import { Agent, World } from "./harness.mjs";

const S = acp.methods.agent.session;

async function withWorld(setup, body) {
  const world = await World.create(setup);
  const agents = [];
  try {
    await body(world, async (args) => {
      const a = await Agent.start(world, args);
      agents.push(a);
      return a;
    });
  } finally {
    try {
      for (const a of agents) await a.stop();
    } finally {
      await world.close();
    }
  }
}

test("session/new answers modes and config options; set_config_option and set_mode change the approval policy", () =>
  withWorld({ replies: [{ toolCalls: [{ id: "w1", name: "write_file", arguments: { path: "n.txt", content: "x" } }] }, { text: "ok" }] }, async (w, start) => {
    const a = await start();
    const s = await a.newSession();
    assert.equal(s.modes.currentModeId, "on-risk");
    assert.deepEqual(s.configOptions.map((o) => o.id), ["mode", "model"]);
    assert.equal(s.configOptions[1].currentValue, "fake-model");

    const set = await a.request(S.setConfigOption, { sessionId: s.sessionId, configId: "mode", value: "always" });
    assert.equal(set.configOptions.find((o) => o.id === "mode").currentValue, "always");
    await a.request(S.setMode, { sessionId: s.sessionId, modeId: "auto" });

    assert.equal((await a.prompt(s.sessionId, "write")).stopReason, "end_turn");
    assert.equal(a.permissions.length, 0, "a Never ask session asked for permission");
    assert.equal(w.read("n.txt"), "x");

    await assert.rejects(a.request(S.setConfigOption, { sessionId: s.sessionId, configId: "nope", value: "x" }), (e) => e.code === -32602);
  }));

test("list, load (replays the transcript before answering), resume, close", () =>
  withWorld({ replies: [{ text: "answer one" }] }, async (w, start) => {
    const a = await start();
    const { sessionId } = await a.newSession();
    await a.prompt(sessionId, "question one");

    const list = await a.request(S.list, {});
    assert.deepEqual(list.sessions.map((s) => [s.sessionId, s.cwd]), [[sessionId, w.workspace]]);
    assert.deepEqual((await a.request(S.list, { cwd: "/elsewhere" })).sessions, []);

    const before = a.updates.length;
    const loaded = await a.request(S.load, { sessionId, cwd: w.workspace, mcpServers: [] });
    assert.equal(loaded.modes.currentModeId, "on-risk");
    const replay = a.updates.slice(before).map((u) => u.update);
    const user = replay.findIndex((u) => u.sessionUpdate === "user_message_chunk" && u.content.text === "question one");
    const answer = replay.findIndex((u) => u.sessionUpdate === "agent_message_chunk" && u.content.text === "answer one");
    assert.ok(user >= 0 && answer > user, `load replayed the prompt then the answer before its reply: ${JSON.stringify(replay)}`);

    const mark = a.updates.length;
    await a.request(S.resume, { sessionId, cwd: w.workspace, mcpServers: [] });
    assert.ok(
      a.updates.slice(mark).every((u) => !["user_message_chunk", "agent_message_chunk"].includes(u.update.sessionUpdate)),
      "resume does not replay",
    );

    await a.request(S.close, { sessionId });
    // Closing unloads; the session stays stored, listed and loadable.
    assert.deepEqual((await a.request(S.list, {})).sessions.map((s) => s.sessionId), [sessionId]);
    await assert.rejects(a.prompt(sessionId, "after close"), (e) => e.code === -32002);
  }));

test("a stored session outlives its process: a new scv acp lists it and loads its whole transcript; delete removes it", () =>
  withWorld({ replies: [{ text: "stored answer" }] }, async (w, start) => {
    // Not through start: this one is killed, so it does not exit 0.
    const a = await Agent.start(w);
    const { sessionId } = await a.newSession();
    await a.prompt(sessionId, "stored question");
    assert.deepEqual(a.invalid, [], a.invalid.join("\n"));
    a.child.kill("SIGKILL");
    await a.exited;

    const b = await start();
    const list = await b.request(S.list, { cwd: w.workspace });
    const row = list.sessions.find((s) => s.sessionId === sessionId);
    assert.ok(row && row.cwd === w.workspace && row.updatedAt, `session/list lacks the stored session: ${JSON.stringify(list)}`);

    await b.request(S.load, { sessionId, cwd: w.workspace, mcpServers: [] });
    const replay = b.updates.map((u) => u.update);
    const user = replay.findIndex((u) => u.sessionUpdate === "user_message_chunk" && u.content.text === "stored question");
    const answer = replay.findIndex((u) => u.sessionUpdate === "agent_message_chunk" && u.content.text === "stored answer");
    assert.ok(user >= 0 && answer > user, `load replayed the stored transcript: ${JSON.stringify(replay)}`);

    await b.request(S.delete, { sessionId });
    assert.deepEqual((await b.request(S.list, {})).sessions, []);
    await assert.rejects(b.request(S.load, { sessionId, cwd: w.workspace, mcpServers: [] }), (e) => e.code === -32002);
  }));

test("session_info_update carries the title: the first prompt's first line, cut to 80 characters (as the runtime stores it); session/list shows it", () =>
  withWorld({ replies: [{ text: "a" }, { text: "b" }] }, async (_w, start) => {
    const a = await start();
    const { sessionId } = await a.newSession();
    const long = "x".repeat(100);
    await a.prompt(sessionId, `\n${long}\nsecond line`);
    const { u } = await a.update("session_info_update");
    assert.equal(u.title, "x".repeat(80));
    await a.prompt(sessionId, "another prompt");
    assert.equal(a.updates.filter((x) => x.update.sessionUpdate === "session_info_update").length, 1, "the title is set once");
    assert.equal((await a.request(S.list, {})).sessions[0].title, u.title);
  }));

test("changing the mode sends current_mode_update and config_option_update", () =>
  withWorld({}, async (_w, start) => {
    const a = await start();
    const { sessionId } = await a.newSession();
    await a.request(S.setMode, { sessionId, modeId: "always" });
    await a.update("current_mode_update", (u) => u.currentModeId === "always");
    await a.update("config_option_update", (u) => u.configOptions.find((o) => o.id === "mode").currentValue === "always");
  }));

test("scv acp --approval=always offers only the modes its ceiling allows, and set_mode cannot lift it", () =>
  withWorld({}, async (w, start) => {
    const a = await start(["--daemon=never", "--approval=always"]);
    const s = await a.newSession();
    assert.equal(s.modes.currentModeId, "always");
    assert.deepEqual(s.modes.availableModes.map((m) => m.id), ["always"]);
    assert.deepEqual(s.configOptions.find((o) => o.id === "mode").options.map((o) => o.value), ["always"]);
    await assert.rejects(a.request(S.setMode, { sessionId: s.sessionId, modeId: "auto" }), (e) => e.code === -32602 && /--approval=always/.test(e.message));
    await assert.rejects(a.request(S.setConfigOption, { sessionId: s.sessionId, configId: "mode", value: "on-risk" }), (e) => e.code === -32602);
    await a.request(S.close, { sessionId: s.sessionId });

    // Loaded by an scv acp without the flag: the stored ceiling holds.
    const b = await start();
    const loaded = await b.request(S.load, { sessionId: s.sessionId, cwd: w.workspace, mcpServers: [] });
    assert.deepEqual(loaded.modes.availableModes.map((m) => m.id), ["always"]);
    await assert.rejects(b.request(S.setMode, { sessionId: s.sessionId, modeId: "auto" }), (e) => e.code === -32602);
  }));
