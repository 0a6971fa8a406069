// The chat webview's script. It only displays HTML rendered by the extension host
// (from the session state) and posts the user's clicks and prompts back.
// Messages in:  {type:"render", html | parts:{header, items:[{key, html}]}, running?, announce?}
//   | {type:"attachments", items:[{label, title}]}
// Messages out: {type:"ready"} | {type:"send", prompt, steer?} | {type:"action", action, approvalId?, turnId?, path?}
//   | {type:"openFile", path, line?} | {type:"code", action:"copy-code"|"insert-code", text}
//   | {type:"pickAttachment"} | {type:"removeAttachment", index}

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

interface ViewState {
  draft: string;
  /** Cards (tool calls, reasoning) the user opened or closed by hand, by id. */
  toggled: Record<string, boolean>;
}

interface ChatParts {
  header: string;
  items: Array<{ key: string; html: string }>;
}

interface RenderMessage {
  type: "render";
  /** The whole chat; or `parts`, of which only the changed ones are replaced. */
  html?: string;
  parts?: ChatParts;
  running?: boolean;
  announce?: string;
}

/** Within this many pixels of the bottom, new output keeps the view scrolled down. */
const STICK_TO_BOTTOM_PX = 40;

const vscode = acquireVsCodeApi();
const saved = (vscode.getState() as ViewState | undefined) ?? { draft: "", toggled: {} };
const chat = document.getElementById("chat") as HTMLElement;
const prompt = document.getElementById("prompt") as HTMLTextAreaElement;
const composer = document.getElementById("composer") as HTMLFormElement;
const sendButton = document.getElementById("send") as HTMLButtonElement;
const steerButton = document.getElementById("steer") as HTMLButtonElement;
const announcer = document.getElementById("announcer") as HTMLElement;
const chips = document.getElementById("attachments") as HTMLElement;

prompt.value = saved.draft;
let running = false;

function save(): void {
  vscode.setState(saved);
}

/** The id a card's open state is remembered by. */
function foldId(d: HTMLElement): string | undefined {
  return d.dataset.callId ?? d.dataset.foldId;
}

/** What identifies the focused control across a re-render (the DOM is replaced). */
function focusKey(el: Element | null): string | undefined {
  if (!el || !chat.contains(el)) return undefined;
  const h = el as HTMLElement;
  if (h.tagName === "SUMMARY") {
    const id = h.parentElement ? foldId(h.parentElement) : undefined;
    return id ? `summary|${id}` : undefined;
  }
  const d = h.dataset;
  if (d.action || d.path) return ["el", d.action, d.approvalId, d.turnId, d.path, d.line].join("|");
  return undefined;
}

function refocus(key: string | undefined): void {
  if (!key) return;
  const all = chat.querySelectorAll<HTMLElement>("summary, [data-action], a[data-path]");
  for (const el of all) {
    if (focusKey(el) === key) {
      el.focus();
      return;
    }
  }
  // The control is gone (an answered approval's buttons): the prompt box, not the page, gets the focus.
  prompt.focus();
}

let pending: RenderMessage | undefined;
let scheduled = false;
const nextFrame: (cb: () => void) => void =
  typeof window.requestAnimationFrame === "function" ? (cb) => window.requestAnimationFrame(cb) : (cb) => setTimeout(cb, 16);

/** Renders at most once per animation frame, the newest HTML only: a flood of output cannot queue work. */
function schedule(msg: RenderMessage): void {
  const announce = msg.announce ?? pending?.announce;
  pending = { ...msg, announce };
  if (scheduled) return;
  scheduled = true;
  nextFrame(() => {
    scheduled = false;
    const m = pending;
    pending = undefined;
    if (m) render(m);
  });
}

/** The transcript's elements by key, with the HTML each was built from. */
let keyed = new Map<string, { html: string; el: Element }>();
let headerHtml: string | undefined;

function fromHtml(html: string): Element {
  const t = document.createElement("template");
  t.innerHTML = html;
  return t.content.firstElementChild ?? document.createElement("div");
}

/** Restores the cards the user opened or closed by hand, in newly built elements. */
function restoreToggles(root: ParentNode): void {
  root.querySelectorAll<HTMLDetailsElement>("details[data-call-id], details[data-fold-id]").forEach((d) => {
    const id = foldId(d);
    if (id && id in saved.toggled) d.open = saved.toggled[id];
  });
}

/** Replaces only the pieces whose HTML changed; the rest of the DOM (and its state) stays. */
function patch(parts: ChatParts): void {
  let header = chat.querySelector(":scope > .header");
  let transcript = chat.querySelector(":scope > .transcript");
  if (!header || !transcript || headerHtml === undefined) {
    chat.innerHTML = `${parts.header}<div class="transcript"></div>`;
    header = chat.querySelector(":scope > .header");
    transcript = chat.querySelector(":scope > .transcript")!;
    keyed = new Map();
  } else if (headerHtml !== parts.header) {
    header.replaceWith(fromHtml(parts.header));
  }
  headerHtml = parts.header;
  const next = new Map<string, { html: string; el: Element }>();
  const order: Element[] = [];
  for (const { key, html } of parts.items) {
    const old = keyed.get(key);
    const el = old && old.html === html ? old.el : fromHtml(html);
    if (el !== old?.el) restoreToggles(el);
    next.set(key, { html, el });
    order.push(el);
  }
  const keep = new Set(order);
  for (const child of [...transcript.children]) if (!keep.has(child)) child.remove();
  order.forEach((el, i) => {
    const at = transcript!.children[i];
    if (at !== el) transcript!.insertBefore(el, at ?? null);
  });
  keyed = next;
}

function render(msg: RenderMessage): void {
  const scroller = document.scrollingElement ?? document.documentElement;
  const atBottom = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < STICK_TO_BOTTOM_PX;
  const focused = document.activeElement;
  const key = focusKey(focused);
  if (msg.parts) {
    patch(msg.parts);
  } else {
    chat.innerHTML = msg.html ?? "";
    keyed = new Map();
    headerHtml = undefined;
    restoreToggles(chat);
  }
  // A control that survived the patch keeps its focus by itself.
  if (!focused || !chat.contains(focused)) refocus(key);
  if (atBottom) scroller.scrollTop = scroller.scrollHeight;
  running = msg.running === true;
  steerButton.hidden = !running;
  sendButton.textContent = running ? "Queue" : "Send";
  sendButton.title = running ? "Queue this prompt for after the running turn (Enter)" : "Send (Enter)";
  if (msg.announce) announcer.textContent = msg.announce;
}

function renderChips(items: Array<{ label: string; title?: string }>): void {
  chips.replaceChildren(
    ...items.map((item, index) => {
      const chip = document.createElement("span");
      chip.className = "chip";
      chip.title = item.title ?? item.label;
      chip.textContent = item.label;
      const remove = document.createElement("button");
      remove.type = "button";
      remove.className = "chip-remove secondary";
      remove.textContent = "×";
      remove.setAttribute("aria-label", `Remove attachment ${item.label}`);
      remove.addEventListener("click", () => vscode.postMessage({ type: "removeAttachment", index }));
      chip.append(remove);
      return chip;
    }),
  );
}

function send(steer: boolean): void {
  const text = prompt.value.trim();
  if (!text) return;
  vscode.postMessage(steer ? { type: "send", prompt: text, steer: true } : { type: "send", prompt: text });
  prompt.value = "";
  saved.draft = "";
  save();
}

window.addEventListener("message", (ev: MessageEvent) => {
  const msg = ev.data as { type?: string; html?: unknown; items?: unknown };
  if (msg.type === "render" && (typeof msg.html === "string" || typeof (msg as RenderMessage).parts === "object")) schedule(msg as RenderMessage);
  else if (msg.type === "attachments" && Array.isArray(msg.items)) renderChips(msg.items as Array<{ label: string; title?: string }>);
});

/** The card whose summary the user just clicked or keyed: only such toggles are remembered. */
let clickedCard: string | undefined;

chat.addEventListener("click", (ev) => {
  const target = ev.target as HTMLElement;
  const summary = target.closest("summary");
  clickedCard = summary?.parentElement ? foldId(summary.parentElement) : undefined;
  const file = target.closest<HTMLAnchorElement>("a.file-link");
  if (file) {
    ev.preventDefault();
    const line = Number(file.dataset.line);
    vscode.postMessage(line > 0 ? { type: "openFile", path: file.dataset.path, line } : { type: "openFile", path: file.dataset.path });
    return;
  }
  const button = target.closest<HTMLButtonElement>("button[data-action]");
  if (!button) return;
  const action = button.dataset.action;
  if (action === "copy-code" || action === "insert-code") {
    const code = button.closest(".code-block")?.querySelector("pre code");
    vscode.postMessage({ type: "code", action, text: code?.textContent ?? "" });
    return;
  }
  button.disabled = true;
  const { approvalId, turnId, path } = button.dataset;
  vscode.postMessage({ type: "action", action, approvalId, turnId, path });
});

// `toggle` does not bubble; listen in the capture phase.
chat.addEventListener(
  "toggle",
  (ev) => {
    const d = ev.target as HTMLDetailsElement;
    const id = foldId(d);
    if (!id || id !== clickedCard) return;
    clickedCard = undefined;
    saved.toggled[id] = d.open;
    save();
  },
  true,
);

prompt.addEventListener("keydown", (ev) => {
  if (ev.key !== "Enter" || ev.shiftKey || ev.isComposing) return;
  ev.preventDefault();
  // Ctrl/Cmd+Enter steers the running turn; Enter sends (or queues while one runs).
  send(running && (ev.ctrlKey || ev.metaKey));
});

prompt.addEventListener("input", (ev) => {
  const e = ev as InputEvent;
  // "@" typed at the start or after a space opens the file picker instead of staying in the text.
  if (e.data === "@") {
    const at = prompt.selectionStart - 1;
    if (prompt.value[at] === "@" && (at === 0 || /\s/.test(prompt.value[at - 1]))) {
      prompt.value = prompt.value.slice(0, at) + prompt.value.slice(at + 1);
      prompt.setSelectionRange(at, at);
      vscode.postMessage({ type: "pickAttachment" });
    }
  }
  saved.draft = prompt.value;
  save();
});

steerButton.addEventListener("click", () => send(true));

composer.addEventListener("submit", (ev) => {
  ev.preventDefault();
  send(false);
});

vscode.postMessage({ type: "ready" });
