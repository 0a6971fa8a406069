// Spawns the real `scv lsp` over stdio with vscode-jsonrpc, in a temporary
// SCV_HOME and workspace, pointed at a fake OpenAI endpoint. Waits are on
// conditions ("this notification has arrived"), each bounded, never sleeps.
import assert from "node:assert/strict";
import { ChildProcessWithoutNullStreams, execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before } from "node:test";
import { promisify } from "node:util";
import { createMessageConnection, MessageConnection, StreamMessageReader, StreamMessageWriter } from "vscode-jsonrpc/node";
import { initialize, InitializeOutcome, ScvConnection } from "../../src/client/connection";
import { serverLaunch } from "../../src/client/launch";
import type { ServerEvent } from "../../src/client/protocol";
import { SessionStore } from "../../src/client/store";
import type { SessionState } from "../../src/client/state";
import { FakeOpenAI, Reply, startFakeOpenAI } from "../fake-openai";

/** Bound on every wait of the integration tests. */
export const WAIT_MS = 20_000;
/** Bound on building the binary when SCV_BIN is not given. */
const BUILD_TIMEOUT_MS = 300_000;
/** Bound on the server's exit after `exit`. */
const EXIT_WAIT_MS = 5_000;

const REPO_ROOT = path.resolve(__dirname, "..", "..", "..", "..");

/**
 * Makes root/home, whose config.toml answers from the endpoint at baseUrl
 * (plus extra TOML), and an empty root/workspace beside it.
 */
export function testHome(root: string, baseUrl: string, extra = ""): { home: string; workspace: string } {
  const home = path.join(root, "home");
  const workspace = path.join(root, "workspace");
  mkdirSync(home, { recursive: true });
  mkdirSync(workspace, { recursive: true });
  writeFileSync(
    path.join(home, "config.toml"),
    `[provider]\nkind = "openai"\nbase_url = "${baseUrl}"\napi_key = "test-key"\nmodel = "fake-model"\n` + extra,
  );
  return { home, workspace };
}

let built: Promise<string> | undefined;

/** The scv binary: $SCV_BIN, or built once per test process into a temp dir. */
export function scvBinary(): Promise<string> {
  if (process.env.SCV_BIN) return Promise.resolve(process.env.SCV_BIN);
  built ??= (async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "scv-bin-"));
    const out = path.join(dir, "scv");
    await promisify(execFile)("go", ["build", "-o", out, "./cmd/scv"], { cwd: REPO_ROOT, timeout: BUILD_TIMEOUT_MS });
    process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
    return out;
  })();
  return built;
}

export interface StartOptions {
  /** The fake endpoint's base URL (…/v1). */
  baseUrl: string;
  /** Files to create in the workspace, relative path → content. */
  files?: Record<string, string>;
  /** Extra TOML appended to config.toml. */
  config?: string;
}

export interface RecordedEvent {
  method: string;
  params: any;
}

/** One running `scv lsp` and a client of it. */
export class ScvProcess {
  readonly events: RecordedEvent[] = [];
  readonly conn: ScvConnection;
  stderr = "";
  private readonly waiters = new Set<() => void>();
  private exited: Promise<number | null>;

  private constructor(
    readonly child: ChildProcessWithoutNullStreams,
    readonly rpc: MessageConnection,
    readonly home: string,
    readonly workspace: string,
  ) {
    this.conn = new ScvConnection(rpc);
    this.exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
    child.stderr.on("data", (d: Buffer) => (this.stderr += d.toString("utf8")));
    this.conn.onEvent((e: ServerEvent) => {
      this.events.push({ method: e.method, params: e.params });
      this.notify();
    });
    child.on("exit", () => this.notify());
  }

  static async start(opts: StartOptions): Promise<ScvProcess> {
    const bin = await scvBinary();
    const root = mkdtempSync(path.join(os.tmpdir(), "scv-it-"));
    const { home, workspace } = testHome(root, opts.baseUrl, opts.config);
    for (const [rel, content] of Object.entries(opts.files ?? {})) {
      mkdirSync(path.dirname(path.join(workspace, rel)), { recursive: true });
      writeFileSync(path.join(workspace, rel), content);
    }
    // The extension's own command line, with the daemon off so the test owns the server.
    const launch = serverLaunch({ path: bin, daemon: "never" });
    const child = spawn(launch.command, launch.args, {
      cwd: workspace,
      env: { ...process.env, SCV_HOME: home, SCV_SOCKET: path.join(home, "test.sock") },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const rpc = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    rpc.listen();
    return new ScvProcess(child, rpc, home, workspace);
  }

  initialize(): Promise<InitializeOutcome> {
    return initialize(this.rpc, (m, p) => this.rpc.sendNotification(m, p), {
      processId: process.pid,
      rootUri: `file://${this.workspace}`,
    });
  }

  /** A session store over this connection, as the extension builds one. */
  store(): SessionStore {
    return new SessionStore(this.conn);
  }

  private notify(): void {
    for (const w of [...this.waiters]) w();
  }

  /** Resolves with the value once `probe` returns one; checked on every event. */
  waitFor<T>(probe: () => T | undefined | false, what: string, timeoutMs = WAIT_MS): Promise<T> {
    const first = probe();
    if (first) return Promise.resolve(first);
    return new Promise((resolve, reject) => {
      const check = () => {
        let v: T | undefined | false;
        try {
          v = probe();
        } catch (err) {
          done();
          reject(err);
          return;
        }
        if (v) {
          done();
          resolve(v);
        } else if (this.child.exitCode !== null) {
          done();
          reject(new Error(`scv exited (${this.child.exitCode}) while waiting for ${what}\nstderr:\n${this.stderr}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}\nevents: ${this.events.map((e) => e.method).join(", ")}\nstderr:\n${this.stderr}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
    });
  }

  /** Waits for a notification matching method (and predicate) and returns it. */
  waitEvent(method: string, pred: (p: any) => boolean = () => true, timeoutMs = WAIT_MS): Promise<RecordedEvent> {
    return this.waitFor(() => this.events.find((e) => e.method === method && pred(e.params)), method, timeoutMs);
  }

  /** Waits until a store's state satisfies a condition (the store changes only on events and replies). */
  waitState(store: SessionStore, cond: (s: SessionState) => boolean, what: string, timeoutMs = WAIT_MS): Promise<SessionState> {
    const probe = () => {
      const s = store.state;
      return s && cond(s) ? s : undefined;
    };
    const first = probe();
    if (first) return Promise.resolve(first);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        sub.dispose();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}\nevents: ${this.events.map((e) => e.method).join(", ")}\nstderr:\n${this.stderr}`));
      }, timeoutMs);
      const sub = store.onDidChange(() => {
        const s = probe();
        if (!s) return;
        clearTimeout(timer);
        sub.dispose();
        resolve(s);
      });
    });
  }

  /** The events of one session, in arrival order. */
  sessionEvents(sessionId: string): RecordedEvent[] {
    return this.events.filter((e) => e.params?.sessionId === sessionId);
  }

  /** Orderly stop: shutdown, exit, and the process's exit code. */
  async stop(): Promise<number | null> {
    try {
      if (this.child.exitCode === null) {
        await this.rpc.sendRequest("shutdown");
        await this.rpc.sendNotification("exit");
      }
    } catch {
      // The process may already be gone; the kill below settles it.
    }
    const code = await Promise.race([
      this.exited,
      new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), EXIT_WAIT_MS).unref()),
    ]);
    this.rpc.dispose();
    if (code === "timeout") {
      this.child.kill("SIGKILL");
      await this.exited;
    }
    rmSync(path.dirname(this.home), { recursive: true, force: true });
    return code === "timeout" ? null : code;
  }
}

/**
 * With SCV_RECORD=1, writes a sequence seen from the real server to
 * test/fixtures/recorded/<name> (JSON lines), for the reducer's unit tests.
 */
export function recordFixture(name: string, lines: object[]): void {
  if (process.env.SCV_RECORD !== "1") return;
  const dir = path.join(__dirname, "..", "fixtures", "recorded");
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, name), lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
}

export interface ServerSetup {
  /** Replies the fake endpoint starts with (more can be scripted later). */
  replies?: Reply[];
  /** Files to create in the workspace. */
  files?: Record<string, string>;
  /** Send initialize before the tests (default true). */
  initialize?: boolean;
}

/**
 * Registers a describe block's fixture: a fake OpenAI endpoint and a real
 * `scv lsp` pointed at it, started before its tests and stopped after them,
 * where `scv lsp` must exit 0 after shutdown + exit. `use` receives both.
 */
export function withServer(setup: ServerSetup, use: (fake: FakeOpenAI, scv: ScvProcess) => void): void {
  let fake: FakeOpenAI;
  let scv: ScvProcess;
  before(async () => {
    fake = await startFakeOpenAI(...(setup.replies ?? []));
    scv = await ScvProcess.start({ baseUrl: fake.baseUrl, files: setup.files });
    if (setup.initialize !== false) await scv.initialize();
    use(fake, scv);
  });
  after(async () => {
    const code = await scv.stop();
    await fake.close();
    assert.equal(code, 0, `scv lsp exits 0 after shutdown + exit\n${scv.stderr}`);
  });
}
