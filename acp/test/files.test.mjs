// fs/read_text_file and fs/write_text_file for a client that advertises
// them, and the session's skills as available commands: in scv acp's own
// process and through a real daemon (whose scv/file/* requests scv acp
// relays to the client's fs methods).
import assert from "node:assert/strict";
import { realpathSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { Agent, World } from "./harness.mjs";

for (const backend of ["in process", "daemon"]) {
  test(`file tools go through the client's fs; skills come as available commands (${backend})`, async () => {
    const world = await World.create({
      files: { "a.txt": "on disk\n", ".scv/skills/review/SKILL.md": "---\ndescription: Review the staged diff\n---\nSteps.\n" },
      replies: [
        { toolCalls: [{ id: "r1", name: "read_file", arguments: { path: "a.txt" } }] },
        { toolCalls: [{ id: "e1", name: "edit_file", arguments: { path: "a.txt", old: "buffer", new: "edited" } }] },
        { toolCalls: [{ id: "w1", name: "write_file", arguments: { path: "a.txt", content: "rewritten\n" } }] },
        { text: "done" },
      ],
    });
    try {
      let args = ["--daemon=never"];
      if (backend === "daemon") {
        await world.startDaemon();
        args = ["--daemon=required", "--socket", world.socket];
      }
      const a = await Agent.start(world, args, { clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } });
      try {
        const file = path.join(realpathSync(world.workspace), "a.txt");
        a.buffers.set(file, "unsaved buffer\n");
        const { sessionId } = await a.newSession();
        const { u } = await a.update("available_commands_update", (u, n) => n.sessionId === sessionId);
        assert.deepEqual(u.availableCommands.map((c) => [c.name, c.description]), [["review", "Review the staged diff"]]);
        const turn = a.prompt(sessionId, "go");
        const p = await a.permission(0);
        p.answer(p.params.options.find((o) => o.kind === "allow_once").optionId);
        // write_file's proposal shows the text it replaces (the disk's).
        const { u: w } = await a.update("tool_call", (u) => u.toolCallId === "w1");
        assert.deepEqual(w.content, [{ type: "diff", path: file, oldText: "on disk\n", newText: "rewritten\n" }]);
        const p2 = await a.permission(1);
        p2.answer(p2.params.options.find((o) => o.kind === "allow_once").optionId);
        assert.equal((await turn).stopReason, "end_turn");
        assert.equal(a.buffers.get(file), "rewritten\n");
        assert.equal(world.read("a.txt"), "on disk\n");
        assert.ok(a.fsRequests.every((r) => r.params.path === file && r.params.sessionId === sessionId));
        assert.deepEqual(a.fsRequests.map((r) => r.method), ["read", "read", "write", "read", "write"]);
      } finally {
        await a.stop();
      }
    } finally {
      await world.close();
    }
  });
}
