// Issue 12's runtime events through ACP, every message validated against
// the SDK's schema: reasoning as agent_thought_chunk, the plan as plan,
// usage as usage_update, a running shell call's output as
// tool_call_update in_progress; a mode changed in an scv/* window of the
// same daemon session reaches the ACP window, and the other way round.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import * as acp from "@agentclientprotocol/sdk";
import { Agent, World, within } from "./harness.mjs";
import { LspClient } from "./lsp-client.mjs";

const S = acp.methods.agent.session;

for (const backend of ["in process", "daemon"]) {
  test(`reasoning, plan and usage reach the client (${backend})`, async () => {
    const plan = { steps: [{ step: "read the code", status: "completed" }, { step: "fix the bug", status: "in_progress" }] };
    const w = await World.create({
      replies: [
        { reasoning: ["weighing ", "the options"], toolCalls: [{ id: "p1", name: "update_plan", arguments: plan }] },
        { text: "fixed", usage: { prompt_tokens: 1200, completion_tokens: 30 } },
      ],
    });
    let a;
    try {
      let args = ["--daemon=never"];
      if (backend === "daemon") {
        await w.startDaemon();
        args = ["--daemon=required", "--socket", w.socket];
      }
      a = await Agent.start(w, args);
      const { sessionId } = await a.newSession();
      assert.equal((await a.prompt(sessionId, "fix it")).stopReason, "end_turn");
      const thought = a.updates.filter((u) => u.update.sessionUpdate === "agent_thought_chunk").map((u) => u.update.content.text);
      assert.equal(thought.join(""), "weighing the options");
      const { u: p } = await a.update("plan");
      assert.deepEqual(p.entries, [
        { content: "read the code", priority: "medium", status: "completed" },
        { content: "fix the bug", priority: "medium", status: "in_progress" },
      ]);
      const { u: usage } = await a.update("usage_update", (u) => u.used === 1200);
      assert.equal(usage.size, 128000);
    } finally {
      try {
        if (a) await a.stop();
      } finally {
        await w.close();
      }
    }
  });
}

for (const backend of ["in process", "daemon"]) {
  // The command prints a step, then waits on a fifo the test writes to
  // only once that step has shown as the call's live content; so every
  // step is seen while the call runs, each update holding all so far.
  test(`a running shell call's output reaches the client while it runs (${backend})`, async () => {
    const w = await World.create();
    const fifos = ["one.fifo", "two.fifo"].map((f) => path.join(w.root, f));
    for (const f of fifos) execFileSync("mkfifo", [f]);
    const command = `echo 'step "one"'; read x < ${fifos[0]}; echo step two >&2; read y < ${fifos[1]}; echo "step $x $y"`;
    w.fake.script({ toolCalls: [{ id: "sh1", name: "shell", arguments: { command } }] }, { text: "ran it" });
    let a;
    try {
      let args = ["--daemon=never", "--approval", "auto"];
      if (backend === "daemon") {
        await w.startDaemon();
        args = ["--daemon=required", "--socket", w.socket, "--approval", "auto"];
      }
      a = await Agent.start(w, args);
      const { sessionId } = await a.newSession();
      const turn = a.prompt(sessionId, "run it");
      const call = (u) => u.toolCallId === "sh1";
      const shown = (text) => (u) => call(u) && u.status === "in_progress" && u.content?.[0]?.content?.text === text;
      const finished = () => a.updates.filter((p) => call(p.update) && ["completed", "failed"].includes(p.update.status));

      await a.update("tool_call_update", shown('step "one"\n'));
      assert.deepEqual(finished(), [], "the call completed before it was released");
      await within(writeFile(fifos[0], "three\n"), "the command to read the first fifo");
      await a.update("tool_call_update", shown('step "one"\nstep two\n'));
      assert.deepEqual(finished(), [], "the call completed before it was released");
      await within(writeFile(fifos[1], "four\n"), "the command to read the second fifo");

      assert.equal((await turn).stopReason, "end_turn");
      const { i: done } = await a.update("tool_call_update", (u) => call(u) && u.status === "completed");
      assert.match(a.updates[done - 1].update.content[0].content.text, /step three four/);
      const live = a.updates.map((p, i) => ({ u: p.update, i })).filter(({ u }) => call(u) && u.status === "in_progress" && u.content);
      const texts = live.map(({ u }) => u.content[0].content.text);
      // The last chunk may come with the completion, which shows it.
      assert.ok(texts.at(-1).startsWith('step "one"\nstep two\n'), `the live updates were ${JSON.stringify(texts)}`);
      texts.forEach((t, i) => i && assert.ok(t.startsWith(texts[i - 1]), `update ${i} does not extend the one before: ${JSON.stringify(texts)}`));
      assert.ok(live.every(({ i }) => i < done - 1), "a live update came after the call completed");
    } finally {
      try {
        if (a) await a.stop();
      } finally {
        await w.close();
      }
    }
  });
}

test("a mode changed in an scv/* window reaches the ACP window of the daemon session, and back", async () => {
  const w = await World.create();
  let a, ed;
  try {
    await w.startDaemon();
    a = await Agent.start(w, ["--daemon=required", "--socket", w.socket]);
    const s = await a.newSession();
    assert.equal(s.modes.currentModeId, "on-risk");
    ed = new LspClient(w, ["lsp", "--daemon=required", "--socket", w.socket]);
    await ed.initialize();
    await ed.request("scv/session/attach", { sessionId: s.sessionId });

    await ed.request("scv/session/configure", { sessionId: s.sessionId, approvalPolicy: "always" });
    await a.update("current_mode_update", (u) => u.currentModeId === "always");
    await a.update("config_option_update", (u) => u.configOptions.find((o) => o.id === "mode").currentValue === "always");

    await a.request(S.setMode, { sessionId: s.sessionId, modeId: "auto" });
    await ed.event("scv/session/configured", (e) => e.approvalPolicy === "auto");
    const set = await a.request(S.setConfigOption, { sessionId: s.sessionId, configId: "model", value: "other-model" });
    assert.equal(set.configOptions.find((o) => o.id === "model").currentValue, "other-model");
    await ed.event("scv/session/configured", (e) => e.model === "other-model");
  } finally {
    try {
      if (a) await a.stop();
    } finally {
      if (ed) await ed.stop();
      await w.close();
    }
  }
});
