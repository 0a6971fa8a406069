// Turn changes and undo (issue 13) and live output, usage (issue 12) against the
// real server, through the store and reducer the chat renders from. Skipped,
// saying so, by a server that does not advertise them.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { before, describe, it } from "node:test";
import { Methods, Notifications } from "../../src/client/protocol";
import type { ToolBlock, TurnEntry } from "../../src/client/state";
import type { FakeOpenAI } from "../fake-openai";
import { ScvProcess, withServer } from "../helpers/scv";

describe("integration: turn changes, undo, live output, usage", () => {
  let fake: FakeOpenAI;
  let scv: ScvProcess;
  let advertised: string[] = [];
  withServer({ initialize: false, files: { "hello.txt": "hello\n" } }, (f, s) => {
    fake = f;
    scv = s;
  });
  before(async () => {
    const init = (await scv.initialize()).scv;
    advertised = [...(init?.methods ?? []), ...(init?.notifications ?? [])];
  });
  const needs = (t: { skip(m: string): void }, ...names: string[]) => {
    const missing = names.filter((m) => !advertised.includes(m));
    if (missing.length) t.skip(`the server does not advertise ${missing.join(", ")}`);
    return missing.length === 0;
  };
  const turnOf = (s: { transcript: unknown[] }, id: string) => s.transcript.find((e: any): e is TurnEntry => e.kind === "turn" && e.turnId === id)!;

  it("lists a turn's files, opens one before ↔ after, refuses an undo over a user edit, then forces it", async (t) => {
    if (!needs(t, Methods.turnChanges, Methods.turnRevert, Notifications.turnReverted)) return;
    fake.script(
      { toolCalls: [{ id: "call_w", name: "write_file", arguments: { path: "hello.txt", content: "hello, world\n" } }] },
      { text: "Edited." },
    );
    const store = scv.store();
    await store.start({ cwd: scv.workspace, approvalPolicy: "auto" });
    const r = await store.sendPrompt("greet the world");
    const turnId = r.status === "started" ? r.turnId : "";
    let s = await scv.waitState(store, (st) => st.status === "idle" && (turnOf(st, turnId)?.changes?.length ?? 0) > 0, "scv/turn/changes");
    assert.deepEqual(turnOf(s, turnId).changes, [{ path: "hello.txt", added: 1, removed: 1 }]);

    const file = await store.changedFile(turnId, "hello.txt");
    assert.equal(file?.before, "hello\n");
    assert.equal(file?.after, "hello, world\n");

    const target = path.join(scv.workspace, "hello.txt");
    writeFileSync(target, "hello, user\n");
    const refused = await store.revert(turnId);
    assert.deepEqual(refused.conflicts.map((c) => c.path), ["hello.txt"]);
    assert.equal(turnOf(store.state!, turnId).revertConflicts?.[0].path, "hello.txt");
    assert.equal(readFileSync(target, "utf8"), "hello, user\n", "a conflicting file is left alone");

    const forced = await store.revert(turnId, true);
    assert.deepEqual(forced.reverted, ["hello.txt"]);
    s = await scv.waitState(store, (st) => turnOf(st, turnId).reverted === true, "scv/turn/reverted");
    assert.equal(turnOf(s, turnId).revertConflicts, undefined);
    assert.equal(readFileSync(target, "utf8"), "hello\n");
  });

  it("shows a shell command's output while it runs, and the session's usage", async (t) => {
    if (!needs(t, Notifications.toolOutput, Notifications.sessionUsage)) return;
    fake.script(
      { toolCalls: [{ id: "call_sh", name: "shell", arguments: { command: "echo first; echo second" } }], usage: { prompt_tokens: 500, completion_tokens: 20 } },
      { text: "Ran it.", usage: { prompt_tokens: 600, completion_tokens: 5 } },
    );
    const store = scv.store();
    await store.start({ cwd: scv.workspace, approvalPolicy: "auto" });
    const r = await store.sendPrompt("run it");
    const turnId = r.status === "started" ? r.turnId : "";
    const live = await scv.waitState(
      store,
      (st) => turnOf(st, turnId)?.blocks.some((b) => b.kind === "tool" && /second/.test(b.live ?? b.output ?? "")) ?? false,
      "the shell's output",
    );
    assert.ok(live);
    const s = await scv.waitState(store, (st) => st.status === "idle" && st.usage !== undefined, "usage");
    const tool = turnOf(s, turnId).blocks.find((b): b is ToolBlock => b.kind === "tool")!;
    assert.match(tool.output ?? "", /first\nsecond/);
    assert.ok(scv.events.some((e) => e.method === Notifications.toolOutput && /first/.test(e.params.chunk)), "live chunks arrived");
    assert.ok(s.usage!.inputTokens >= 1100, JSON.stringify(s.usage));
    assert.ok(s.usage!.contextMaxTokens > 0);
  });
});
