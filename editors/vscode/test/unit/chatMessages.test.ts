// The chat view's checks of webview messages and its screen-reader announcements.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { announcement } from "../../src/client/announce";
import { attachmentChips, parseChatMessage, toAttachments } from "../../src/client/chatMessages";
import { reduce, reduceAll } from "../../src/client/reducer";
import { ev, load } from "../helpers/fixtures";

describe("parseChatMessage", () => {
  it("accepts the messages the webview sends", () => {
    assert.deepEqual(parseChatMessage({ type: "send", prompt: "x", steer: true }), { type: "send", prompt: "x", steer: true });
    assert.deepEqual(parseChatMessage({ type: "send", prompt: "x" }), { type: "send", prompt: "x", steer: false });
    assert.deepEqual(parseChatMessage({ type: "openFile", path: "a.go", line: 3 }), { type: "openFile", path: "a.go", line: 3 });
    assert.deepEqual(parseChatMessage({ type: "code", action: "insert-code", text: "t" }), { type: "code", action: "insert", text: "t" });
    assert.deepEqual(parseChatMessage({ type: "action", action: "open-diff", turnId: "t1", path: "a" }), {
      type: "action", action: "open-diff", approvalId: undefined, turnId: "t1", path: "a",
    });
  });

  it("drops malformed ones", () => {
    for (const bad of [null, "send", { type: "send" }, { type: "openFile", path: 3 }, { type: "code", action: "rm", text: "" }, { type: "removeAttachment", index: -1 }, { type: "nope" }]) {
      assert.equal(parseChatMessage(bad), undefined, JSON.stringify(bad));
    }
    assert.deepEqual(parseChatMessage({ type: "openFile", path: "a", line: "7" }), { type: "openFile", path: "a" });
  });
});

describe("attachments from scv.attachFile", () => {
  it("takes one or several {uri, range?, text?}, and labels them", () => {
    const range = { start: { line: 2, character: 0 }, end: { line: 4, character: 0 } };
    const ctx = toAttachments([{ uri: "file:///w/notes.md", range }, { uri: { toString: () => "file:///w/a.go" } }, { nope: 1 }, null]);
    assert.deepEqual(ctx, [{ uri: "file:///w/notes.md", range }, { uri: "file:///w/a.go" }]);
    assert.deepEqual(toAttachments(undefined), []);
    assert.deepEqual(attachmentChips(ctx), [
      { label: "notes.md:3-4", title: "file:///w/notes.md" },
      { label: "a.go", title: "file:///w/a.go" },
    ]);
  });
});

describe("announcement", () => {
  const actions = load("rich-turn.jsonl");
  const states = actions.reduce<ReturnType<typeof reduceAll>[]>((acc, a) => [...acc, reduce(acc.at(-1), a)], []);
  const said = states.slice(1).map((s, i) => announcement(states[i], s)).filter(Boolean);

  it("says what a user must know as the turn goes, not every streamed word", () => {
    assert.deepEqual(said, [
      "SCV is working.",
      "Plan: 0 of 2 steps done.",
      "Approval needed: shell (exec).",
      "Plan: 2 of 2 steps done.",
      "2 files changed.",
      "Answer complete.",
      "Model: big-model. Approval policy: always.",
    ]);
  });

  it("says an undo", () => {
    const s = states.at(-1)!;
    const after = reduce(s, ev("scv/turn/reverted", { sessionId: "s1", seq: s.seq + 1, turnId: "t1", turnIds: ["t1"] }));
    assert.equal(announcement(s, after), "Turn undone.");
  });
});
