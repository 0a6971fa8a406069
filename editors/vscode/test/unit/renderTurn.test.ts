// Rendering of the richer turns (issue 12 and 13) and the fixes of issue 14:
// diffs spaced once, file names that are not web links, highlighted code.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { JSDOM } from "jsdom";
import { renderMarkdown } from "../../src/client/markdown";
import { reduce, reduceAll } from "../../src/client/reducer";
import { MAX_LIVE_OUTPUT_CHARS } from "../../src/client/reducerTurn";
import { renderChat } from "../../src/client/render";
import { ev, load } from "../helpers/fixtures";

const CSS = readFileSync(path.join(__dirname, "..", "..", "media", "chat.css"), "utf8");

function dom(html: string) {
  return new JSDOM(`<!DOCTYPE html><head><style>${CSS}</style></head><body>${html}</body>`).window;
}

const actions = load("rich-turn.jsonl");
const upTo = (method: string) => actions.slice(0, actions.findIndex((a) => a.type === "event" && a.event.method === method) + 1);

describe("renderChat: richer turns", () => {
  it("folds the reasoning, shows the plan as a checklist and the steer in place", () => {
    const doc = dom(renderChat(reduceAll(undefined, actions))).document;
    const thinking = doc.querySelector<HTMLDetailsElement>("details.reasoning");
    assert.equal(thinking?.open, false);
    assert.equal(thinking?.querySelector("summary")?.textContent, "Thinking");
    assert.equal(thinking?.querySelector(".reasoning-text")?.textContent, "The user wants the tests run. I will plan first.");
    const steps = [...doc.querySelectorAll(".plan .plan-step")].map((li) => li.getAttribute("data-status"));
    assert.deepEqual(steps, ["completed", "completed"]);
    assert.match(doc.querySelector(".plan-head")?.textContent ?? "", /2\/2 done/);
    assert.match(doc.querySelector(".steer")?.textContent ?? "", /Only the greeting package, please/);
  });

  it("shows live output under a running call, opened, and a note when its head was dropped", () => {
    let s = reduceAll(undefined, upTo("scv/tool/output"));
    let doc = dom(renderChat(s)).document;
    const card = doc.querySelector<HTMLDetailsElement>('details.tool[data-call-id="c1"]');
    assert.equal(card?.open, true);
    assert.equal(card?.querySelector(".tool-live")?.textContent, "=== RUN   TestGreeting\n");
    s = reduce(s, ev("scv/tool/output", { sessionId: "s1", seq: s.seq + 1, turnId: "t1", callId: "c1", chunk: "y".repeat(200_000) }));
    doc = dom(renderChat(s)).document;
    assert.match(doc.querySelector(".tool .truncated")?.textContent ?? "", /earlier characters not shown/);
  });

  it("holds a bounded HTML with 10 MB of live output, whatever the chunking", () => {
    let s = reduceAll(undefined, upTo("scv/tool/output"));
    const chunk = "ok  \tscv/pkg\t0.01s\n".repeat(512); // ~10 KB
    for (let i = 0; i < 1000; i++) s = reduce(s, ev("scv/tool/output", { sessionId: "s1", seq: s.seq + 1, turnId: "t1", callId: "c1", chunk }));
    const html = renderChat(s);
    assert.ok(html.length < 2 * MAX_LIVE_OUTPUT_CHARS + 20_000, `${html.length} chars of HTML`);
  });

  it("is usable with the keyboard alone: every action is a button, every link has an href", () => {
    let s = reduceAll(undefined, actions);
    s = reduce(s, { type: "revertConflicts", turnId: "t1", conflicts: [{ path: "notes.md", diff: "-a\n+b\n" }] });
    const doc = dom(renderChat(s) + renderChat(reduceAll(undefined, upTo("scv/approval/requested")))).document;
    const actionable = [...doc.querySelectorAll("[data-action]")];
    assert.ok(actionable.length >= 8);
    for (const el of actionable) assert.equal(el.tagName, "BUTTON", el.outerHTML.slice(0, 80));
    for (const a of doc.querySelectorAll("a")) assert.ok(a.hasAttribute("href"), a.outerHTML);
    for (const d of doc.querySelectorAll("details")) assert.equal(d.firstElementChild?.tagName, "SUMMARY");
  });

  it("offers Always allow with the suggested rule on a pending approval", () => {
    const doc = dom(renderChat(reduceAll(undefined, upTo("scv/approval/requested")))).document;
    const b = doc.querySelector<HTMLButtonElement>('button[data-action="allow-rule"]');
    assert.equal(b?.textContent, "Always allow shell:go test *");
    assert.equal(b?.dataset.approvalId, "a1");
  });

  it("lists the changed files with a diff button each and Undo; then marks the turn undone", () => {
    let s = reduceAll(undefined, actions);
    let doc = dom(renderChat(s)).document;
    assert.equal(doc.querySelector(".changes-head")?.textContent, "2 files changed");
    const files = [...doc.querySelectorAll<HTMLButtonElement>('.changes button[data-action="open-diff"]')].map((b) => [b.dataset.turnId, b.dataset.path]);
    assert.deepEqual(files, [["t1", "greeting/hello.go"], ["t1", "notes.md"]]);
    assert.ok(doc.querySelector('button[data-action="undo-turn"][data-turn-id="t1"]'));

    s = reduce(s, { type: "revertConflicts", turnId: "t1", conflicts: [{ path: "notes.md", diff: "@@ -1 +1 @@\n-a\n+b\n" }] });
    doc = dom(renderChat(s)).document;
    assert.equal(doc.querySelector(".revert-conflicts .conflict-path")?.textContent, "notes.md");
    assert.ok(doc.querySelector('.revert-conflicts button[data-action="revert-force"][data-turn-id="t1"]'));

    s = reduce(s, ev("scv/turn/reverted", { sessionId: "s1", seq: s.seq + 1, turnId: "t1", turnIds: ["t1"] }));
    doc = dom(renderChat(s)).document;
    assert.equal(doc.querySelector(".turn")?.getAttribute("data-reverted"), "true");
    assert.equal(doc.querySelector('button[data-action="undo-turn"]'), null);
    assert.equal(doc.querySelector(".revert-conflicts"), null);
  });

  it("has model and policy pickers and the context use in the header", () => {
    const doc = dom(renderChat(reduceAll(undefined, actions))).document;
    assert.match(doc.querySelector('.header button[data-action="pick-model"]')?.textContent ?? "", /^big-model/);
    assert.match(doc.querySelector('.header button[data-action="pick-policy"]')?.textContent ?? "", /^always/);
    assert.equal(doc.querySelector(".header .ctx")?.textContent, "ctx 42% · 12.3k tok");
  });
});

describe("issue 14 bug 1: the approval diff", () => {
  it("is spaced once: lines are separated by the <pre>'s newlines, not also laid out as blocks", () => {
    const full = load("full-turn.jsonl");
    const approval = full.findIndex((a) => a.type === "event" && a.event.method === "scv/approval/requested");
    const window = dom(renderChat(reduceAll(undefined, full.slice(0, approval + 1))));
    const pre = window.document.querySelector(".approval pre.diff")!;
    assert.ok(pre.querySelectorAll("span").length >= 3);
    assert.match(pre.textContent ?? "", /\n/, "a copy keeps the lines");
    for (const span of pre.querySelectorAll("span")) {
      assert.notEqual(window.getComputedStyle(span).display, "block", "a block line plus a newline shows an empty line between lines");
    }
  });
});

describe("issue 14 bug 2: links in answers", () => {
  const links = (md: string) =>
    [...dom(renderMarkdown(md)).document.querySelectorAll("a")].map((a) => ({
      text: a.textContent,
      href: a.getAttribute("href"),
      path: a.getAttribute("data-path") ?? undefined,
      line: a.getAttribute("data-line") ?? undefined,
    }));

  it("a bare file name opens the workspace file, never a web page", () => {
    assert.deepEqual(links("See notes.md."), [{ text: "notes.md", href: "#", path: "notes.md", line: undefined }]);
  });

  it("path:line, in text or in code, opens the file at that line", () => {
    assert.deepEqual(links("Fixed `greeting/hello.go:12` and src/a.ts:3:5 too"), [
      { text: "greeting/hello.go:12", href: "#", path: "greeting/hello.go", line: "12" },
      { text: "src/a.ts:3:5", href: "#", path: "src/a.ts", line: "3" },
    ]);
  });

  it("code that is not a path stays code", () => {
    assert.deepEqual(links("Run `cat a.go`, `fmt.Println` and `go test ./...`, not e.g. v1.2.3"), []);
  });

  it("only http(s) URLs are web links; domains without a scheme and other schemes are text", () => {
    assert.deepEqual(links("Docs at https://go.dev/doc and example.com, e.g. v1.2.3"), [
      { text: "https://go.dev/doc", href: "https://go.dev/doc", path: undefined, line: undefined },
    ]);
    assert.deepEqual(links("[x](file:///etc/passwd) [y](javascript:alert(1)) [z](docs/guide.md)"), [
      { text: "z", href: "#", path: "docs/guide.md", line: undefined },
    ]);
  });
});

describe("code blocks", () => {
  it("are highlighted with classes the theme colours, with Copy and Insert buttons", () => {
    const doc = dom(renderMarkdown("```go\nfunc main() { return }\n```\n")).document;
    const block = doc.querySelector(".code-block")!;
    assert.ok(block.querySelector("code.hljs.language-go .hljs-keyword"));
    assert.equal(block.querySelector("code")?.textContent, "func main() { return }\n");
    assert.deepEqual([...block.querySelectorAll("button")].map((b) => b.getAttribute("data-action")), ["copy-code", "insert-code"]);
  });

  it("of an unknown language stay escaped text", () => {
    const doc = dom(renderMarkdown("```nosuch\n<script>x</script>\n```\n")).document;
    assert.equal(doc.querySelector("script"), null);
    assert.equal(doc.querySelector(".code-block code")?.textContent, "<script>x</script>\n");
  });
});
