// The notice a turn's terminal event carries (the session's file passed
// 80 % of sessions.max_log_bytes): the chat used to drop it, so the next
// prompt was refused with nothing shown before.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { reduceAll } from "../../src/client/reducer";
import { renderChat } from "../../src/client/render";
import type { TurnEntry } from "../../src/client/state";
import { ev, snapshot } from "../helpers/fixtures";

const NOTICE = "this session's file is about 27000 bytes, past 80% of its bound of 32768 bytes (sessions.max_log_bytes) <b>";

const ends: [string, Record<string, unknown>][] = [
  ["scv/turn/completed", { steps: 1, usage: { inputTokens: 1, outputTokens: 1 } }],
  ["scv/turn/cancelled", {}],
  ["scv/turn/failed", { code: "timeout", message: "slow" }],
];

describe("a turn's end with a notice", () => {
  for (const [method, params] of ends) {
    it(`${method} shows its notice as a warning of the turn`, () => {
      const state = reduceAll(undefined, [
        { type: "snapshot", snapshot: snapshot({ seq: 0 }), afterSeq: 0 },
        ev("scv/turn/started", { sessionId: "s1", seq: 1, turnId: "t1", prompt: "fill" }),
        ev(method, { sessionId: "s1", seq: 2, turnId: "t1", ...params, notice: NOTICE }),
      ]);
      const turn = state.transcript.find((e): e is TurnEntry => e.kind === "turn" && e.turnId === "t1")!;
      assert.deepEqual(turn.blocks.at(-1), { kind: "notice", level: "warning", text: NOTICE });
      const html = renderChat(state);
      assert.ok(html.includes(`<div class="notice notice-warning">${NOTICE.replace("<b>", "&lt;b&gt;").replace("'", "&#39;")}</div>`), html);
    });
  }

  it("an end without a notice adds none", () => {
    const state = reduceAll(undefined, [
      { type: "snapshot", snapshot: snapshot({ seq: 0 }), afterSeq: 0 },
      ev("scv/turn/started", { sessionId: "s1", seq: 1, turnId: "t1", prompt: "fill" }),
      ev("scv/turn/completed", { sessionId: "s1", seq: 2, turnId: "t1", steps: 1, usage: { inputTokens: 1, outputTokens: 1 } }),
    ]);
    const turn = state.transcript.find((e): e is TurnEntry => e.kind === "turn" && e.turnId === "t1")!;
    assert.equal(turn.blocks.filter((b) => b.kind === "notice").length, 0);
  });
});
