// Benchmark (not a test): the chat's render of a 2,000-line answer with 20 code
// blocks, host side (state → HTML) and webview side (HTML → DOM in jsdom), as a
// ratio to baselines measured in the same run: the same text as one escaped
// <pre> (no Markdown), and plain markdown-it (no highlighting, no file links).
// Run: npm run bench
import { performance } from "node:perf_hooks";
import { JSDOM } from "jsdom";
import MarkdownIt from "markdown-it";
import { escapeText } from "../../src/client/escape";
import { reduceAll } from "../../src/client/reducer";
import { reduce } from "../../src/client/reducer";
import { renderChat, renderChatParts } from "../../src/client/render";
import { ev, snapshot } from "../helpers/fixtures";
import { boot, buildWebview } from "../helpers/webview";

const LINES = 2000;
const BLOCKS = 20;
const RUNS = 15;

/** 20 fenced blocks of 40 lines in three languages, prose with paths and URLs between. */
function answer(): string {
  const langs = ["go", "typescript", "python"];
  const out: string[] = [];
  const proseBetween = Math.floor((LINES - BLOCKS * 42) / BLOCKS);
  for (let b = 0; b < BLOCKS; b++) {
    for (let i = 0; i < proseBetween; i++) {
      out.push(`Line ${out.length}: see \`src/pkg${b}/file${i}.go:${i + 1}\`, notes.md and https://go.dev/doc/${i} — **why** it matters.`);
    }
    const lang = langs[b % langs.length];
    out.push("```" + lang);
    for (let i = 0; i < 40; i++) {
      out.push(
        lang === "go"
          ? `\tif err := run(ctx, "step ${i}", ${i}); err != nil { return fmt.Errorf("step %d: %w", ${i}, err) }`
          : lang === "python"
            ? `    value_${i} = compute(${i}, name="step ${i}")  # step ${i}`
            : `  const value${i}: number = await compute(${i}, "step ${i}"); // step ${i}`,
      );
    }
    out.push("```");
  }
  while (out.length < LINES) out.push(`Closing line ${out.length}.`);
  return out.join("\n");
}

function median(fn: () => void): number {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[Math.floor(RUNS / 2)];
}

const text = answer();
const state = reduceAll(undefined, [
  { type: "snapshot", snapshot: snapshot({ seq: 0 }) },
  ev("scv/turn/started", { sessionId: "s1", seq: 1, turnId: "t1", prompt: "Explain" }),
  ev("scv/assistant/completed", { sessionId: "s1", seq: 2, turnId: "t1", content: text }),
]);
// What the chat used before: markdown-it with its linkify, no highlighting.
const plainMd = new MarkdownIt({ html: false, linkify: true });
const { window } = new JSDOM(`<!DOCTYPE html><body><main id="chat"></main></body>`);
const chat = window.document.getElementById("chat")!;

/** The same state with fresh objects, so the cache of ended turns does not answer. */
const fresh = () => structuredClone(state);

// Warm up the JIT and highlight.js's compiled grammars.
for (let i = 0; i < 3; i++) renderChat(fresh());

const html = renderChat(state);
const plainHtml = `<pre>${escapeText(text)}</pre>`;
const mdHtml = plainMd.render(text);

const copies = Array.from({ length: RUNS }, fresh);
const host = median(() => renderChat(copies.pop()!));
renderChat(state);
const cached = median(() => renderChat(state));
const hostPlain = median(() => `<pre>${escapeText(text)}</pre>`);
const hostMd = median(() => plainMd.render(text));
const dom = median(() => (chat.innerHTML = html));
const domPlain = median(() => (chat.innerHTML = plainHtml));
const domMd = median(() => (chat.innerHTML = mdHtml));

const lines = text.split("\n").length;
const fences = (text.match(/^```[a-z]/gm) ?? []).length;
console.log(`answer: ${lines} lines, ${fences} code blocks, ${text.length} chars; HTML ${html.length} chars; median of ${RUNS} runs`);
console.log(`host  renderChat: ${host.toFixed(1)} ms  = ${(host / hostMd).toFixed(2)}× plain markdown-it (${hostMd.toFixed(1)} ms), ${(host / hostPlain).toFixed(0)}× an escaped <pre> (${hostPlain.toFixed(2)} ms)`);
console.log(`host  renderChat again while a later turn streams (ended turn cached): ${cached.toFixed(2)} ms = ${(cached / host).toFixed(5)}× the first render`);
console.log(`DOM   innerHTML (jsdom): ${dom.toFixed(1)} ms = ${(dom / domMd).toFixed(2)}× plain markdown-it's HTML (${domMd.toFixed(1)} ms), ${(dom / domPlain).toFixed(1)}× an escaped <pre> (${domPlain.toFixed(1)} ms)`);

// A streaming tick of a later turn under that answer, in the webview script itself:
// the whole chat's HTML replaced, against the keyed parts (only the running turn rebuilt).
async function streamingTick(): Promise<void> {
  await buildWebview();
  let s = reduce(state, ev("scv/turn/started", { sessionId: "s1", seq: 3, turnId: "t2", prompt: "More" }));
  const ticks = Array.from({ length: RUNS + 1 }, (_, i) => {
    s = reduce(s, ev("scv/assistant/delta", { sessionId: "s1", seq: 4 + i, turnId: "t2", content: `word${i} ` }));
    return s;
  });
  const whole = boot();
  const keyed = boot();
  keyed.render("", { parts: renderChatParts(ticks[0]) });
  let i = 0;
  const full = median(() => whole.render(renderChat(ticks[++i % ticks.length])));
  i = 0;
  const parts = median(() => keyed.render("", { parts: renderChatParts(ticks[++i]) }));
  console.log(`webview streaming tick (jsdom): keyed parts ${parts.toFixed(1)} ms = ${(parts / full).toFixed(3)}× replacing the whole chat (${full.toFixed(1)} ms)`);
}
void streamingTick();
