// The chat webview's script. It only displays HTML rendered by the extension host
// (from the session state) and posts the user's clicks and prompts back.
// Messages in:  {type:"render", html}
// Messages out: {type:"ready"} | {type:"send", prompt} | {type:"action", action, approvalId?}

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

interface ViewState {
  draft: string;
  /** Tool cards the user opened or closed by hand, by call id. */
  toggled: Record<string, boolean>;
}

/** Within this many pixels of the bottom, new output keeps the view scrolled down. */
const STICK_TO_BOTTOM_PX = 40;

const vscode = acquireVsCodeApi();
const saved = (vscode.getState() as ViewState | undefined) ?? { draft: "", toggled: {} };
const chat = document.getElementById("chat") as HTMLElement;
const prompt = document.getElementById("prompt") as HTMLTextAreaElement;
const composer = document.getElementById("composer") as HTMLFormElement;

prompt.value = saved.draft;

function save(): void {
  vscode.setState(saved);
}

function render(html: string): void {
  const scroller = document.scrollingElement ?? document.documentElement;
  const atBottom = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < STICK_TO_BOTTOM_PX;
  chat.innerHTML = html;
  chat.querySelectorAll<HTMLDetailsElement>("details.tool").forEach((d) => {
    const id = d.dataset.callId;
    if (id && id in saved.toggled) d.open = saved.toggled[id];
  });
  if (atBottom) scroller.scrollTop = scroller.scrollHeight;
}

function send(): void {
  const text = prompt.value.trim();
  if (!text) return;
  vscode.postMessage({ type: "send", prompt: text });
  prompt.value = "";
  saved.draft = "";
  save();
}

window.addEventListener("message", (ev: MessageEvent) => {
  const msg = ev.data as { type?: string; html?: string };
  if (msg.type === "render" && typeof msg.html === "string") render(msg.html);
});

/** The card whose summary the user just clicked: only such toggles are remembered. */
let clickedCard: string | undefined;

chat.addEventListener("click", (ev) => {
  const summary = (ev.target as HTMLElement).closest("summary");
  clickedCard = (summary?.parentElement as HTMLElement | null)?.dataset.callId;
  const button = (ev.target as HTMLElement).closest<HTMLButtonElement>("button[data-action]");
  if (!button) return;
  button.disabled = true;
  vscode.postMessage({ type: "action", action: button.dataset.action, approvalId: button.dataset.approvalId });
});

// `toggle` does not bubble; listen in the capture phase.
chat.addEventListener(
  "toggle",
  (ev) => {
    const d = ev.target as HTMLDetailsElement;
    const id = d.dataset?.callId;
    if (!id || id !== clickedCard) return;
    clickedCard = undefined;
    saved.toggled[id] = d.open;
    save();
  },
  true,
);

prompt.addEventListener("keydown", (ev) => {
  if (ev.key === "Enter" && !ev.shiftKey && !ev.isComposing) {
    ev.preventDefault();
    send();
  }
});

prompt.addEventListener("input", () => {
  saved.draft = prompt.value;
  save();
});

composer.addEventListener("submit", (ev) => {
  ev.preventDefault();
  send();
});

vscode.postMessage({ type: "ready" });
