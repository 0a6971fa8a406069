// A full turn against the real `scv lsp`: initialize → session/start → turn/start
// → deltas → tool/proposed → approval/requested → approval/resolve →
// tool/completed → turn/completed, through the same core the extension uses.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { JSDOM } from "jsdom";
import type { FakeOpenAI } from "../fake-openai";
import { PROTOCOL_VERSION, ALL_NOTIFICATIONS, Methods } from "../../src/client/protocol";
import { renderChat } from "../../src/client/render";
import type { ToolBlock, TurnEntry } from "../../src/client/state";
import { RecordedEvent, recordFixture, ScvProcess, withServer } from "../helpers/scv";

function seqs(events: RecordedEvent[]): number[] {
  return events.map((e) => e.params.seq);
}

describe("integration: a full turn with a diff approval", () => {
  let fake: FakeOpenAI;
  let scv: ScvProcess;

  withServer(
    {
      replies: [
        {
          text: ["I'll ", "fix the ", "greeting."],
          toolCalls: [{ id: "call_edit", name: "edit_file", arguments: { path: "hello.txt", old: "hello", new: "hello, world" } }],
          usage: { prompt_tokens: 100, completion_tokens: 20 },
        },
        { text: ["Done: ", "it now says *hello, world*."], usage: { prompt_tokens: 140, completion_tokens: 12 } },
      ],
      files: { "hello.txt": "hello\n" },
      initialize: false, // the first test checks initialize itself
    },
    (f, s) => {
      fake = f;
      scv = s;
    },
  );

  it("initialize advertises protocol 1 and every method and notification the client uses", async () => {
    const init = await scv.initialize();
    assert.equal(init.serverInfo?.name, "scv");
    assert.equal(init.scv?.protocolVersion, PROTOCOL_VERSION);
    assert.deepEqual([...(init.scv?.methods ?? [])].sort(), Object.values(Methods).sort());
    assert.deepEqual([...(init.scv?.notifications ?? [])].sort(), [...ALL_NOTIFICATIONS].sort());
    assert.equal(init.scv?.daemon, false);
  });

  it("streams the answer, asks approval with a unified diff, applies the edit and completes", async () => {
    const store = scv.store();
    const started = await store.start({ cwd: scv.workspace, approvalPolicy: "on-risk" });
    const sid = started.sessionId;
    assert.equal(started.seq, 0);
    assert.equal(started.status, "idle");

    const result = await store.sendPrompt("Please fix the greeting in hello.txt");
    assert.equal(result.status, "started");
    const turnId = result.status === "started" ? result.turnId : "";

    const waiting = await scv.waitState(store, (s) => s.approvals.length === 1, "the approval request");
    const approval = waiting.approvals[0];
    assert.equal(approval.name, "edit_file");
    assert.equal(approval.risk, "write");
    assert.equal(approval.turnId, turnId);
    assert.match(approval.summary, /^--- a\/hello\.txt$/m);
    assert.match(approval.summary, /^\+\+\+ b\/hello\.txt$/m);
    assert.match(approval.summary, /^-hello$/m);
    assert.match(approval.summary, /^\+hello, world$/m);
    assert.equal(readFileSync(path.join(scv.workspace, "hello.txt"), "utf8"), "hello\n", "nothing is written before approval");

    // The chat shows the approval card with its three answers, Open Diff (an
    // edit), and the diff.
    const doc = new JSDOM(renderChat(waiting)).window.document;
    const buttons = doc.querySelectorAll<HTMLButtonElement>(`.approval[data-approval-id="${approval.approvalId}"] button`);
    assert.deepEqual([...buttons].map((b) => b.dataset.action), ["approve", "deny", "approve-session", "review-edit", "allow-rule"]);
    assert.equal(doc.querySelector(".diff .diff-add")?.textContent, "+hello, world");

    assert.equal(await store.resolve(approval.approvalId, "approve"), true);
    const done = await scv.waitState(store, (s) => s.status === "idle" && s.approvals.length === 0 && s.lastUsage !== undefined, "turn/completed");

    assert.equal(readFileSync(path.join(scv.workspace, "hello.txt"), "utf8"), "hello, world\n");
    const events = scv.sessionEvents(sid);
    const order = events.map((e) => e.method);
    const at = (m: string) => order.indexOf(m);
    assert.deepEqual(
      [at("scv/turn/started"), at("scv/assistant/delta"), at("scv/tool/proposed"), at("scv/approval/requested"), at("scv/approval/resolved"), at("scv/tool/started"), at("scv/tool/completed"), at("scv/turn/completed")].every((v, i, a) => v >= 0 && (i === 0 || v > a[i - 1])),
      true,
      `event order: ${order.join(", ")}`,
    );
    assert.equal(order.filter((m) => m === "scv/turn/completed").length, 1);
    assert.deepEqual(seqs(events), events.map((_, i) => i + 1), "seq runs 1, 2, 3… with no hole or repeat");

    const turn = done.transcript.find((e): e is TurnEntry => e.kind === "turn" && e.turnId === turnId);
    assert.ok(turn);
    assert.equal(turn.status, "completed");
    assert.equal(turn.prompt, "Please fix the greeting in hello.txt");
    const texts = turn.blocks.flatMap((b) => (b.kind === "text" ? [b.text] : []));
    assert.deepEqual(texts, ["I'll fix the greeting.", "Done: it now says *hello, world*."]);
    const card = turn.blocks.find((b): b is ToolBlock => b.kind === "tool");
    assert.equal(card?.callId, "call_edit");
    assert.equal(card?.status, "succeeded");
    assert.equal(card?.approval?.decision, "approve");
    assert.deepEqual(JSON.parse(card?.arguments ?? "{}"), { path: "hello.txt", old: "hello", new: "hello, world" });
    assert.ok(turn.usage && turn.usage.inputTokens > 0 && turn.usage.outputTokens > 0, "usage reported");

    // The provider saw the tool result, with the configured key.
    assert.equal(fake.requests.length, 2);
    assert.ok(fake.authorizations.every((a) => a === "Bearer test-key"));
    const toolMsg = fake.requests[1].messages.find((m: any) => m.role === "tool");
    assert.equal(toolMsg?.tool_call_id, "call_edit");
    assert.equal(fake.requests[0].stream, true);

    const snapshotLine = {
      result: { sessionId: sid, cwd: started.cwd, model: started.model, state: "idle", queue: { entries: [], paused: false }, pendingApprovals: [], seq: 0, contextMaxTokens: started.contextMaxTokens, limits: started.limits },
    };
    recordFixture("full-turn.jsonl", [snapshotLine, { prompt: "Please fix the greeting in hello.txt", result }, ...events]);
  });

  it("a second resolve of the same approval gets approval_not_found", async () => {
    const store = scv.store();
    await store.start({ cwd: scv.workspace });
    fake.script({ toolCalls: [{ id: "call_w", name: "write_file", arguments: { path: "new.txt", content: "x\n" } }] }, { text: "ok" });
    await store.sendPrompt("write a file");
    const s = await scv.waitState(store, (st) => st.approvals.length === 1, "the approval request");
    const id = s.approvals[0].approvalId;
    assert.equal(await store.resolve(id, "deny"), true);
    assert.equal(await store.resolve(id, "approve"), false, "the first resolver wins");
    const end = await scv.waitState(store, (st) => st.status === "idle" && st.lastUsage !== undefined, "turn end");
    const card = end.transcript.flatMap((e) => (e.kind === "turn" ? e.blocks : [])).find((b): b is ToolBlock => b.kind === "tool");
    assert.equal(card?.status, "denied");
    assert.throws(() => readFileSync(path.join(scv.workspace, "new.txt")), /ENOENT/);
  });
});
