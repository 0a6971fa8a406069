// The webview script on what issues 12-14 added: batching per animation frame,
// focus kept across renders, steer vs queue, @ attachments, file links, code
// buttons, and the aria-live announcer.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { renderMarkdown } from "../../src/client/markdown";
import { reduce, reduceAll } from "../../src/client/reducer";
import { renderChat, renderChatParts } from "../../src/client/render";
import { ev, load } from "../helpers/fixtures";
import { boot, buildWebview } from "../helpers/webview";

before(buildWebview);

const actions = load("rich-turn.jsonl");
const pendingAt = actions.findIndex((a) => a.type === "event" && a.event.method === "scv/approval/requested");
const pending = renderChat(reduceAll(undefined, actions.slice(0, pendingAt + 1)));
const done = renderChat(reduceAll(undefined, actions));

describe("webview: rendering under load", () => {
  it("renders once per animation frame, the newest HTML only", () => {
    const { doc, post, flush, frames, window } = boot();
    const observer = new window.MutationObserver(() => undefined);
    observer.observe(doc.getElementById("chat")!, { childList: true });
    for (let i = 0; i < 50; i++) post({ type: "render", html: `<p id="n">${i}</p>` });
    assert.equal(frames.length, 1, "one frame asked for, however many renders arrive");
    assert.equal(observer.takeRecords().length, 0, "nothing drawn before the frame");
    flush();
    assert.equal(doc.getElementById("n")?.textContent, "49");
    // One innerHTML write: one record removing the old children and adding the new.
    assert.equal(observer.takeRecords().length, 1);
  });

  it("with keyed parts, rebuilds only the turn that changed: the others keep their nodes and state", () => {
    const { doc, render } = boot();
    const one = reduceAll(undefined, actions);
    const two = reduceAll(one, [
      ev("scv/turn/started", { sessionId: "s1", seq: one.seq + 1, turnId: "t2", prompt: "next" }),
      ev("scv/assistant/delta", { sessionId: "s1", seq: one.seq + 2, turnId: "t2", content: "wor" }),
    ]);
    render("", { parts: renderChatParts(two) });
    const t1 = doc.querySelector('.turn[data-turn-id="t1"]')!;
    const t2 = doc.querySelector('.turn[data-turn-id="t2"]')!;
    doc.querySelector<HTMLDetailsElement>('.turn[data-turn-id="t1"] details.reasoning')!.open = true;
    const more = reduce(two, ev("scv/assistant/delta", { sessionId: "s1", seq: two.seq + 1, turnId: "t2", content: "king" }));
    render("", { parts: renderChatParts(more) });
    assert.equal(doc.querySelector('.turn[data-turn-id="t1"]'), t1, "the ended turn was not rebuilt");
    assert.equal(doc.querySelector<HTMLDetailsElement>('.turn[data-turn-id="t1"] details.reasoning')!.open, true);
    assert.notEqual(doc.querySelector('.turn[data-turn-id="t2"]'), t2);
    assert.match(doc.querySelector('.turn[data-turn-id="t2"] .assistant')!.textContent!, /working/);
    assert.deepEqual([...doc.querySelectorAll("#chat .transcript > *")].map((e) => e.getAttribute("data-turn-id")), ["t1", "t2"]);
    render("", { parts: renderChatParts(reduce(more, ev("scv/session/cleared", { sessionId: "s1", seq: more.seq + 1 }))) });
    assert.deepEqual([...doc.querySelectorAll("#chat .transcript > *")].map((e) => e.textContent), ["Session cleared."]);
  });

  it("keeps the keyboard focus on the same control when the chat is re-rendered", () => {
    const { doc, render } = boot();
    render(pending);
    const deny = doc.querySelector<HTMLButtonElement>('button[data-action="deny"]')!;
    deny.focus();
    render(pending + " ");
    const now = doc.activeElement as HTMLElement;
    assert.notEqual(now, deny, "the DOM was replaced");
    assert.equal(now.dataset.action, "deny");
    assert.equal(now.dataset.approvalId, "a1");
  });

  it("puts the focus in the prompt box when the focused control goes away", () => {
    const { doc, render } = boot();
    render(pending);
    doc.querySelector<HTMLButtonElement>('button[data-action="approve"]')!.focus();
    render(done);
    assert.equal(doc.activeElement?.id, "prompt");
  });

  it("announces news in the live region", () => {
    const { doc, render } = boot();
    const region = doc.getElementById("announcer")!;
    assert.equal(region.getAttribute("aria-live"), "polite");
    render(pending, { announce: "Approval needed: shell (exec)." });
    assert.equal(region.textContent, "Approval needed: shell (exec).");
  });
});

describe("webview: the prompt box", () => {
  it("while a turn runs offers Send now (steer) beside Queue; Ctrl+Enter steers, Enter queues", () => {
    const { window, doc, render, posted } = boot();
    const steer = doc.getElementById("steer") as HTMLButtonElement;
    const send = doc.getElementById("send") as HTMLButtonElement;
    render(done, { running: false });
    assert.equal(steer.hidden, true);
    assert.equal(send.textContent, "Send");
    render(done, { running: true });
    assert.equal(steer.hidden, false);
    assert.equal(send.textContent, "Queue");

    const box = doc.querySelector<HTMLTextAreaElement>("#prompt")!;
    box.value = "only the greeting package";
    box.dispatchEvent(new window.KeyboardEvent("keydown", { key: "Enter", ctrlKey: true, bubbles: true, cancelable: true }));
    assert.deepEqual(posted.at(-1), { type: "send", prompt: "only the greeting package", steer: true });
    box.value = "then the docs";
    box.dispatchEvent(new window.KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true }));
    assert.deepEqual(posted.at(-1), { type: "send", prompt: "then the docs" });
    box.value = "via the button";
    steer.click();
    assert.deepEqual(posted.at(-1), { type: "send", prompt: "via the button", steer: true });
  });

  it("@ at a word start asks the extension for a file and shows the attachments as removable chips", () => {
    const { window, doc, posted, post } = boot();
    const box = doc.querySelector<HTMLTextAreaElement>("#prompt")!;
    box.value = "look at @";
    box.setSelectionRange(9, 9);
    box.dispatchEvent(new window.InputEvent("input", { data: "@", inputType: "insertText", bubbles: true }));
    assert.deepEqual(posted.at(-1), { type: "pickAttachment" });
    assert.equal(box.value, "look at ");
    box.value = "mail me@x";
    box.setSelectionRange(7, 7);
    const before = posted.length;
    box.dispatchEvent(new window.InputEvent("input", { data: "@", inputType: "insertText", bubbles: true }));
    assert.equal(posted.length, before, "an @ inside a word is text");

    post({ type: "attachments", items: [{ label: "hello.go", title: "file:///w/hello.go" }, { label: "notes.md:3-5", title: "file:///w/notes.md" }] });
    const chips = [...doc.querySelectorAll("#attachments .chip")];
    assert.deepEqual(chips.map((c) => c.firstChild?.textContent), ["hello.go", "notes.md:3-5"]);
    const remove = chips[1].querySelector("button")!;
    assert.equal(remove.getAttribute("aria-label"), "Remove attachment notes.md:3-5");
    remove.click();
    assert.deepEqual(posted.at(-1), { type: "removeAttachment", index: 1 });
  });
});

describe("webview: links and code in answers", () => {
  it("a file link posts openFile with its line instead of navigating", () => {
    const { doc, render, posted } = boot();
    render(done);
    const link = doc.querySelector<HTMLAnchorElement>('a.file-link[data-path="greeting/hello.go"]')!;
    link.click();
    assert.deepEqual(posted.at(-1), { type: "openFile", path: "greeting/hello.go", line: 12 });
  });

  it("Copy and Insert post the code block's text", () => {
    const { doc, render, posted } = boot();
    render(renderMarkdown("```go\nfmt.Println(1)\n```\n"));
    doc.querySelector<HTMLButtonElement>('button[data-action="copy-code"]')!.click();
    assert.deepEqual(posted.at(-1), { type: "code", action: "copy-code", text: "fmt.Println(1)\n" });
    doc.querySelector<HTMLButtonElement>('button[data-action="insert-code"]')!.click();
    assert.deepEqual(posted.at(-1), { type: "code", action: "insert-code", text: "fmt.Println(1)\n" });
  });

  it("buttons under a turn post their turn and path", () => {
    const { doc, render, posted } = boot();
    render(done);
    doc.querySelector<HTMLButtonElement>('button[data-action="open-diff"][data-path="notes.md"]')!.click();
    assert.deepEqual(posted.at(-1), { type: "action", action: "open-diff", turnId: "t1", path: "notes.md" });
    doc.querySelector<HTMLButtonElement>('button[data-action="undo-turn"]')!.click();
    assert.deepEqual(posted.at(-1), { type: "action", action: "undo-turn", turnId: "t1" });
  });
});
