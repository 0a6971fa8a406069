// fs/read_text_file and fs/write_text_file for a client that advertises
// them, and the session's skills as available commands.
import assert from "node:assert/strict";
import { realpathSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { Agent, World } from "./harness.mjs";

test("file tools go through the client's fs; skills come as available commands", async () => {
  const world = await World.create({
    files: { "a.txt": "on disk\n", ".scv/skills/review/SKILL.md": "---\ndescription: Review the staged diff\n---\nSteps.\n" },
    replies: [
      { toolCalls: [{ id: "r1", name: "read_file", arguments: { path: "a.txt" } }] },
      { toolCalls: [{ id: "w1", name: "edit_file", arguments: { path: "a.txt", old: "buffer", new: "edited" } }] },
      { text: "done" },
    ],
  });
  try {
    const a = await Agent.start(world, ["--daemon=never"], { clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } });
    try {
      const file = path.join(realpathSync(world.workspace), "a.txt");
      a.buffers.set(file, "unsaved buffer\n");
      const { sessionId } = await a.newSession();
      const { u } = await a.update("available_commands_update", (u, n) => n.sessionId === sessionId);
      assert.deepEqual(u.availableCommands.map((c) => [c.name, c.description]), [["review", "Review the staged diff"]]);
      const turn = a.prompt(sessionId, "go");
      const p = await a.permission(0);
      p.answer(p.params.options.find((o) => o.kind === "allow_once").optionId);
      assert.equal((await turn).stopReason, "end_turn");
      assert.equal(a.buffers.get(file), "unsaved edited\n");
      assert.equal(world.read("a.txt"), "on disk\n");
      assert.ok(a.fsRequests.every((r) => r.params.path === file && r.params.sessionId === sessionId));
      assert.deepEqual(a.fsRequests.map((r) => r.method), ["read", "read", "write"]);
    } finally {
      await a.stop();
    }
  } finally {
    await world.close();
  }
});
