// Markdown of answers: markdown-it with raw HTML off; only http(s) URLs become web
// links, paths and path:line become links that open the workspace file (the
// webview posts them to the extension); fenced code is highlighted with classes
// the stylesheet maps to the theme's colours, with Copy and Insert buttons.
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import lua from "highlight.js/lib/languages/lua";
import makefile from "highlight.js/lib/languages/makefile";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import sql from "highlight.js/lib/languages/sql";
import ini from "highlight.js/lib/languages/ini";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import MarkdownIt from "markdown-it";
import { escapeHtml } from "./escape";
import { revealHidden } from "./revealHidden";

const LANGUAGES = { bash, c, cpp, css, diff, go, java, javascript, json, lua, makefile, markdown, python, rust, sql, ini, typescript, xml, yaml };
for (const [name, lang] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, lang);
hljs.registerAliases(["sh", "shell", "zsh", "console"], { languageName: "bash" });
hljs.registerAliases(["toml"], { languageName: "ini" });
hljs.registerAliases(["html", "svg"], { languageName: "xml" });
hljs.registerAliases(["golang"], { languageName: "go" });

// markdown-it's linkify is off: it makes web links of bare names (notes.md →
// http://notes.md) and costs most of the render; web links are found below.
const md = new MarkdownIt({ html: false, linkify: false, breaks: false });
type StateCore = Parameters<Parameters<typeof md.core.ruler.push>[1]>[0];
type Token = StateCore["tokens"][number];

/** Extensions of bare file names (no slash, no line) taken as paths. */
const FILE_EXTENSIONS = new Set(
  ("go mod sum ts tsx js jsx mjs cjs json md txt py rs c h cc cpp hpp java kt lua sh bash zsh css scss html " +
    "xml yaml yml toml ini cfg conf lock sql rb php swift vue svelte proto gradle csv log env").split(" "),
);

const WEB = /^https?:\/\//i;
/** An http(s) URL, or names joined by dots or slashes, with an optional :line or :line:col. */
const CANDIDATE = /\bhttps?:\/\/[^\s<>"'`]+|(?<![\w@/.:~-])(?:\.{1,2}\/|~?\/)?[\w~-]+(?:[./][\w~-]+)+(?::\d+(?::\d+)?)?/gi;
/** Punctuation that ends a sentence, not a URL. */
const URL_TAIL = /[.,;:!?)\]}]+$/;

export interface FileRef {
  path: string;
  line?: number;
}

/** The workspace file a piece of text names ("src/a.go", "notes.md:12"), if it looks like one. */
export function fileRef(text: string): FileRef | undefined {
  const m = /^(.*?)(?::(\d+)(?::\d+)?)?$/.exec(text);
  if (!m) return undefined;
  const path = m[1].replace(/\.+$/, "");
  const line = m[2] ? Number(m[2]) : undefined;
  if (!path || /\s/.test(path) || path.includes("://") || /^[a-z][a-z0-9+.-]*:/i.test(path)) return undefined;
  const base = path.split("/").pop() ?? "";
  const ext = /\.([A-Za-z][A-Za-z0-9]{0,9})$/.exec(base)?.[1];
  if (!ext) return undefined;
  // A bare dotfile name (".env") is more often a word than a file to open.
  if (base.startsWith(".") && base.indexOf(".", 1) < 0 && !path.includes("/")) return undefined;
  if (!path.includes("/") && line === undefined && !FILE_EXTENSIONS.has(ext.toLowerCase())) return undefined;
  return line ? { path, line } : { path };
}

function fileLinkOpen(state: StateCore, ref: FileRef): Token {
  const t = new state.Token("link_open", "a", 1);
  t.meta = { file: ref };
  return t;
}

function webLinkOpen(state: StateCore, href: string): Token {
  const t = new state.Token("link_open", "a", 1);
  t.attrSet("href", href);
  t.meta = {};
  return t;
}

/** Splits a text token at the http(s) URLs and paths it names. */
function linkPaths(state: StateCore, token: Token): Token[] {
  const out: Token[] = [];
  let last = 0;
  const text = token.content;
  for (const m of text.matchAll(CANDIDATE)) {
    let found = m[0];
    let open: Token;
    if (WEB.test(found)) {
      found = found.replace(URL_TAIL, "");
      // Taken as written (the renderer escapes it): normalizeLink's punycode pass costs more than the whole parse.
      open = webLinkOpen(state, found);
    } else {
      const ref = fileRef(found);
      if (!ref) continue;
      // A sentence's full stop is not part of the name.
      if (ref.line === undefined) found = found.replace(/\.+$/, "");
      open = fileLinkOpen(state, ref);
    }
    const at = m.index ?? 0;
    if (at > last) out.push(textToken(state, text.slice(last, at)));
    out.push(open, textToken(state, found), new state.Token("link_close", "a", -1));
    last = at + found.length;
  }
  if (last === 0) return [token];
  if (last < text.length) out.push(textToken(state, text.slice(last)));
  return out;
}

function textToken(state: StateCore, content: string): Token {
  const t = new state.Token("text", "", 0);
  t.content = content;
  return t;
}

/** Classifies every link: web (http/https), file (a path), or none (any other scheme: plain text). */
function classifyLinks(state: StateCore): void {
  for (const block of state.tokens) {
    if (block.type !== "inline" || !block.children) continue;
    const children: Token[] = [];
    let depth = 0;
    const kinds: Array<{ file?: FileRef; none?: boolean }> = [];
    for (const t of block.children) {
      if (t.type === "link_open") {
        const href = t.attrGet("href") ?? "";
        const ref = WEB.test(href) ? undefined : fileRef(decodeURIComponentSafe(href));
        t.meta = WEB.test(href) ? {} : ref ? { file: ref } : { none: true };
        kinds.push(t.meta);
        depth++;
      } else if (t.type === "link_close") {
        t.meta = kinds.pop() ?? {};
        depth--;
      } else if (depth === 0 && t.type === "text") {
        children.push(...linkPaths(state, t));
        continue;
      } else if (depth === 0 && t.type === "code_inline") {
        const ref = fileRef(t.content);
        if (ref) {
          children.push(fileLinkOpen(state, ref), t, new state.Token("link_close", "a", -1));
          continue;
        }
      }
      children.push(t);
    }
    block.children = children;
  }
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

md.core.ruler.push("scv_links", classifyLinks);

md.renderer.rules.link_open = (tokens, idx, options, _env, self) => {
  const t = tokens[idx];
  const meta = (t.meta ?? {}) as { file?: FileRef; none?: boolean };
  if (meta.none) return "";
  if (meta.file) {
    const line = meta.file.line ? ` data-line="${meta.file.line}"` : "";
    const title = `Open ${meta.file.path}${meta.file.line ? ` at line ${meta.file.line}` : ""}`;
    return `<a href="#" class="file-link" data-path="${escapeHtml(meta.file.path)}"${line} title="${escapeHtml(title)}">`;
  }
  return self.renderToken(tokens, idx, options);
};
md.renderer.rules.link_close = (tokens, idx, options, _env, self) =>
  (tokens[idx].meta as { none?: boolean } | null)?.none ? "" : self.renderToken(tokens, idx, options);

md.renderer.rules.fence = (tokens, idx) => {
  const t = tokens[idx];
  const lang = t.info.trim().split(/\s+/)[0]?.toLowerCase() ?? "";
  return renderCodeBlock(t.content, lang);
};

/** A code block: highlighted when its language is known, with Copy and Insert-at-cursor buttons. */
export function renderCodeBlock(code: string, lang: string): string {
  const known = lang !== "" && hljs.getLanguage(lang) !== undefined;
  const body = known ? hljs.highlight(code, { language: lang, ignoreIllegals: true }).value : escapeHtml(code);
  const label = lang ? `<span class="code-lang">${escapeHtml(lang)}</span>` : "";
  return (
    `<div class="code-block">` +
    `<div class="code-actions">${label}` +
    `<button class="secondary" data-action="copy-code" aria-label="Copy code">Copy</button>` +
    `<button class="secondary" data-action="insert-code" aria-label="Insert code at the cursor">Insert</button></div>` +
    `<pre><code class="hljs${known ? ` language-${escapeHtml(lang)}` : ""}">${body}</code></pre></div>`
  );
}

export function renderMarkdown(text: string): string {
  return md.render(revealHidden(text));
}
