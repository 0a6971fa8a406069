// The webview script in jsdom: it shows what the extension renders and posts the
// user's clicks and prompts back.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { reduceAll } from "../../src/client/reducer";
import { renderChat } from "../../src/client/render";
import { load } from "../helpers/fixtures";
import { boot, buildWebview } from "../helpers/webview";

before(buildWebview);

describe("webview script", () => {
  const actions = load("full-turn.jsonl");
  const approvalAt = actions.findIndex((a) => a.type === "event" && a.event.method === "scv/approval/requested");
  const pending = renderChat(reduceAll(undefined, actions.slice(0, approvalAt + 1)));

  it("says it is ready, then shows what it is sent", () => {
    const { doc, posted, render } = boot();
    assert.deepEqual(posted, [{ type: "ready" }]);
    render(pending);
    assert.ok(doc.querySelector('#chat .approval[data-approval-id="a1"]'));
  });

  it("posts the approval button's action and disables it", () => {
    const { doc, posted, render } = boot();
    render(pending);
    const approve = doc.querySelector<HTMLButtonElement>('button[data-action="approve-session"]');
    approve!.click();
    assert.deepEqual(posted.at(-1), { type: "action", action: "approve-session", approvalId: "a1" });
    assert.equal(approve!.disabled, true);
    doc.querySelector<HTMLButtonElement>('button[data-action="cancel"]')!.click();
    assert.deepEqual(posted.at(-1), { type: "action", action: "cancel" });
  });

  it("shows a restored session like a live one: title, every prompt, the interruption", () => {
    const { doc, render } = boot();
    render(renderChat(reduceAll(undefined, load("restored.jsonl"))));
    assert.equal(doc.querySelector("#chat .header .title")?.textContent, "Fix the greeting");
    assert.deepEqual([...doc.querySelectorAll("#chat .turn .prompt")].map((p) => p.textContent), ["Fix the greeting", "Now the farewell"]);
    assert.ok(doc.querySelector('#chat .turn[data-turn-id="t2"] .notice.interrupted'));
    assert.match(doc.querySelector("#chat .transcript > .notice:last-child")?.textContent ?? "", /^Restored after a restart/);
  });

  it("Enter sends the prompt and clears the box; Shift+Enter does not send", () => {
    const { window, doc, posted } = boot();
    const box = doc.querySelector<HTMLTextAreaElement>("#prompt")!;
    box.value = "first line";
    box.dispatchEvent(new window.KeyboardEvent("keydown", { key: "Enter", shiftKey: true, bubbles: true }));
    assert.equal(posted.length, 1);
    box.value = "  do it  ";
    box.dispatchEvent(new window.KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true }));
    assert.deepEqual(posted.at(-1), { type: "send", prompt: "do it" });
    assert.equal(box.value, "");
    box.dispatchEvent(new window.KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true }));
    assert.equal(posted.length, 2, "an empty box sends nothing");
  });

  it("keeps the draft in the webview state so it survives the view being hidden", () => {
    const { window, doc, saved } = boot();
    const box = doc.querySelector<HTMLTextAreaElement>("#prompt")!;
    box.value = "half a thought";
    box.dispatchEvent(new window.Event("input", { bubbles: true }));
    assert.deepEqual(saved(), { draft: "half a thought", toggled: {} });
  });
});
