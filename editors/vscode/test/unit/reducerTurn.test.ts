// The reducer on the events of issue 12 (steer, configure, reasoning, live output,
// plan, usage) and 13 (turn changes, reverts), from a recorded sequence.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { reduce, reduceAll } from "../../src/client/reducer";
import { MAX_LIVE_OUTPUT_CHARS } from "../../src/client/reducerTurn";
import type { ToolBlock, TurnEntry } from "../../src/client/state";
import { usageText } from "../../src/client/summary";
import { ev, load, snapshot } from "../helpers/fixtures";

const actions = load("rich-turn.jsonl");
const turnOf = (s: ReturnType<typeof reduceAll>, id = "t1") => s.transcript.find((e): e is TurnEntry => e.kind === "turn" && e.turnId === id)!;
const at = (method: string, nth = 0) => {
  let seen = 0;
  return actions.findIndex((a) => a.type === "event" && a.event.method === method && seen++ === nth);
};

describe("reducer: richer turns", () => {
  it("keeps reasoning as one block of its own, apart from the answer", () => {
    const t = turnOf(reduceAll(undefined, actions));
    assert.deepEqual(t.blocks[0], { kind: "reasoning", text: "The user wants the tests run. I will plan first." });
    assert.ok(t.blocks.some((b) => b.kind === "text" && b.text.startsWith("Fixed")));
  });

  it("streams live output under the tool call, then replaces it with the final output", () => {
    const mid = turnOf(reduceAll(undefined, actions.slice(0, at("scv/tool/completed"))));
    const tool = mid.blocks.find((b): b is ToolBlock => b.kind === "tool")!;
    assert.equal(tool.live, "=== RUN   TestGreeting\n--- FAIL: TestGreeting (0.00s)\n");
    assert.equal(tool.status, "running");
    const done = turnOf(reduceAll(undefined, actions)).blocks.find((b): b is ToolBlock => b.kind === "tool")!;
    assert.equal(done.live, undefined);
    assert.match(done.output ?? "", /FAIL$/);
  });

  it("keeps only the tail of a flood of live output, counting what it dropped", () => {
    let s = reduceAll(undefined, actions.slice(0, at("scv/tool/output")));
    const chunk = "x".repeat(100_000) + "\n";
    for (let i = 0; i < 100; i++) {
      s = reduce(s, ev("scv/tool/output", { sessionId: "s1", seq: s.seq + 1, turnId: "t1", callId: "c1", chunk }));
    }
    const tool = turnOf(s).blocks.find((b): b is ToolBlock => b.kind === "tool")!;
    assert.equal(tool.live!.length, MAX_LIVE_OUTPUT_CHARS);
    assert.equal(tool.liveDropped, 100 * chunk.length - MAX_LIVE_OUTPUT_CHARS);
    assert.ok(tool.live!.endsWith("x\n"));
  });

  it("shows a steer where it happened in the turn, after the text before it", () => {
    const t = turnOf(reduceAll(undefined, actions));
    const i = t.blocks.findIndex((b) => b.kind === "steer");
    assert.deepEqual(t.blocks[i], { kind: "steer", prompt: "Only the greeting package, please" });
    assert.equal(t.blocks[i - 1].kind, "tool");
  });

  it("keeps the latest plan of the turn", () => {
    const mid = turnOf(reduceAll(undefined, actions.slice(0, at("scv/plan/updated") + 1)));
    assert.deepEqual(mid.plan?.map((p) => p.status), ["in_progress", "pending"]);
    assert.deepEqual(turnOf(reduceAll(undefined, actions)).plan?.map((p) => p.status), ["completed", "completed"]);
  });

  it("tracks the session's usage and says it as ctx % · tokens", () => {
    const s = reduceAll(undefined, actions);
    assert.deepEqual(s.usage, { inputTokens: 12000, outputTokens: 345, contextTokens: 53760, contextMaxTokens: 128000 });
    assert.equal(usageText(s), "ctx 42% · 12.3k tok");
    assert.equal(usageText(reduceAll(undefined, actions.slice(0, 2))), undefined);
  });

  it("carries the suggested rule of an approval to its card", () => {
    const s = reduceAll(undefined, actions.slice(0, at("scv/approval/requested") + 1));
    const tool = turnOf(s).blocks.find((b): b is ToolBlock => b.kind === "tool")!;
    assert.equal(tool.approval?.suggestedRule, "shell:go test *");
    assert.equal(s.approvals[0].suggestedRule, "shell:go test *");
  });

  it("applies a live configure to model and policy, not a replayed one the snapshot covers", () => {
    const s = reduceAll(undefined, actions);
    assert.equal(s.model, "big-model");
    assert.equal(s.approvalPolicy, "always");
    const replayed = reduceAll(undefined, [
      { type: "snapshot", snapshot: snapshot({ seq: 30, model: "newest" }), afterSeq: 0 },
      ev("scv/session/configured", { sessionId: "s1", seq: 5, model: "older", approvalPolicy: "never" }),
    ]);
    assert.equal(replayed.model, "newest");
  });

  it("lists the files a turn changed, and marks it and the later turns reverted", () => {
    let s = reduceAll(undefined, actions);
    assert.deepEqual(turnOf(s).changes, [
      { path: "greeting/hello.go", added: 1, removed: 1 },
      { path: "notes.md", added: 3, removed: 0 },
    ]);
    s = reduceAll(s, [
      ev("scv/turn/started", { sessionId: "s1", seq: s.seq + 1, turnId: "t2" }),
      ev("scv/turn/completed", { sessionId: "s1", seq: s.seq + 2, turnId: "t2", steps: 1, usage: { inputTokens: 1, outputTokens: 1 } }),
      { type: "revertConflicts", turnId: "t1", conflicts: [{ path: "notes.md", diff: "@@ -1 +1 @@\n-a\n+b\n" }] },
    ]);
    assert.equal(turnOf(s).revertConflicts?.[0].path, "notes.md");
    s = reduce(s, ev("scv/turn/reverted", { sessionId: "s1", seq: s.seq + 1, turnId: "t1", turnIds: ["t1", "t2"] }));
    assert.equal(turnOf(s, "t1").reverted, true);
    assert.equal(turnOf(s, "t2").reverted, true);
    assert.equal(turnOf(s).revertConflicts, undefined, "a revert that went through clears the conflicts");
  });

  it("takes usage, plan and policy from a snapshot, for a window that attaches late", () => {
    const s = reduce(undefined, {
      type: "snapshot",
      snapshot: snapshot({
        seq: 9,
        state: "running",
        turnId: "t4",
        approvalPolicy: "always",
        usage: { turnId: "t4", inputTokens: 900, outputTokens: 100, contextTokens: 500, contextMaxTokens: 1000 },
        plan: { turnId: "t4", steps: [{ step: "read", status: "completed" }, { step: "write", status: "in_progress" }] },
      }),
    });
    assert.equal(usageText(s), "ctx 50% · 1.0k tok");
    assert.equal(s.approvalPolicy, "always");
    assert.deepEqual(turnOf(s, "t4").plan?.map((p) => p.step), ["read", "write"]);
  });
});
