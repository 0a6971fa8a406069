// The chat view of a restored session renders like a live one, with its title,
// the prompts other windows sent, what the restart interrupted, and attachments.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { JSDOM } from "jsdom";
import { reduceAll } from "../../src/client/reducer";
import { renderChat } from "../../src/client/render";
import { ev, load, snapshot } from "../helpers/fixtures";

function dom(html: string): Document {
  return new JSDOM(`<!DOCTYPE html><body>${html}</body>`).window.document;
}

describe("renderChat: a restored session", () => {
  const doc = dom(renderChat(reduceAll(undefined, load("restored.jsonl"))));

  it("shows the title in the header", () => {
    assert.equal(doc.querySelector(".header .title")?.textContent, "Fix the greeting");
  });

  it("shows every turn with its prompt, and the attachments sent with it", () => {
    const prompts = [...doc.querySelectorAll(".turn .prompt")].map((p) => p.textContent);
    assert.deepEqual(prompts, ["Fix the greeting", "Now the farewell"]);
    const att = doc.querySelector('.turn[data-turn-id="t1"] .context .attachment');
    assert.equal(att?.textContent, "hello.txt:1-2");
    assert.equal(att?.getAttribute("title"), "file:///work/demo/hello.txt");
  });

  it("marks the cut-off response and says the turn was interrupted, not that it failed", () => {
    const t2 = doc.querySelector('.turn[data-turn-id="t2"]');
    assert.equal(t2?.querySelector(".assistant")?.textContent?.trim(), "Half an ans");
    assert.equal(t2?.querySelector(".cut-off")?.textContent, "response cut off");
    const footer = t2?.querySelector(".notice.interrupted");
    assert.match(footer?.textContent ?? "", /^Turn interrupted by a restart: scv stopped while this turn ran/);
    assert.doesNotMatch(t2?.textContent ?? "", /Turn failed/);
  });

  it("ends with the restored notice and shows the queue paused", () => {
    const notices = [...doc.querySelectorAll(".transcript > .notice")].map((n) => n.textContent);
    assert.match(notices.at(-1) ?? "", /^Restored after a restart: turn t2 was interrupted/);
    assert.equal(doc.querySelector(".header .queued")?.textContent, "1 queued (paused)");
  });

  it("escapes the title and the attachment's name", () => {
    const s = reduceAll(undefined, [
      { type: "snapshot", snapshot: snapshot({ seq: 0, title: "<b>x</b>" }) },
      ev("scv/turn/started", { sessionId: "s1", seq: 1, turnId: "t1", prompt: "p", context: [{ uri: "file:///w/<i>.ts" }] }),
    ]);
    const d = dom(renderChat(s));
    assert.equal(d.querySelector(".header .title")?.textContent, "<b>x</b>");
    assert.equal(d.querySelector(".attachment")?.textContent, "<i>.ts");
    assert.equal(d.querySelector("b, i"), null);
  });
});
