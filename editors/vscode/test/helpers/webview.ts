// The chat webview's script (src/webview/main.ts) booted in jsdom, with the
// VS Code API and animation frames under the test's control.
import path from "node:path";
import * as esbuild from "esbuild";
import { JSDOM } from "jsdom";
import { renderChat, renderDocument } from "../../src/client/render";

let script: string | undefined;

async function bundle(): Promise<string> {
  if (script !== undefined) return script;
  const out = await esbuild.build({
    entryPoints: [path.join(__dirname, "..", "..", "src", "webview", "main.ts")],
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
  });
  script = out.outputFiles[0].text;
  return script;
}

/** Builds the script once; call in a `before`. */
export async function buildWebview(): Promise<void> {
  await bundle();
}

/**
 * The webview in jsdom, with animation frames run by the test: `render` posts a
 * render message and runs the frame, `post` only posts (the frame waits in `frames`).
 */
export function boot() {
  if (script === undefined) throw new Error("call buildWebview() first");
  const html = renderDocument({ cspSource: "x:", nonce: "n", scriptUri: "about:blank", styleUri: "about:blank", body: renderChat(undefined) });
  const { window } = new JSDOM(html.replace(/<script[^>]*><\/script>/, ""), { runScripts: "outside-only" });
  const posted: any[] = [];
  let saved: unknown;
  const frames: Array<() => void> = [];
  Object.assign(window, {
    requestAnimationFrame: (cb: () => void) => frames.push(cb),
    acquireVsCodeApi: () => ({
      // Copied out of the window's realm, so deepEqual compares plain values.
      postMessage: (m: unknown) => posted.push(JSON.parse(JSON.stringify(m))),
      getState: () => saved,
      setState: (s: unknown) => (saved = JSON.parse(JSON.stringify(s))),
    }),
  });
  window.eval(script!);
  const post = (data: Record<string, unknown>) => window.dispatchEvent(new window.MessageEvent("message", { data }));
  const flush = () => frames.splice(0).forEach((f) => f());
  const render = (html: string, extra: Record<string, unknown> = {}) => {
    post({ type: "render", html, ...extra });
    flush();
  };
  return { window, doc: window.document, posted, render, post, flush, frames, saved: () => saved };
}

