// Drives the real `scv acp` with the official ACP client (the SDK's
// ClientApp, which replaces ClientSideConnection in SDK 2.x) against the
// fake OpenAI endpoint the VS Code tests use. Every line scv writes is
// validated against the SDK's schema before the client reads it; a test's
// stop() fails when any did not validate. Waits are on conditions ("this
// update has arrived"), each bounded, never sleeps.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import * as acp from "@agentclientprotocol/sdk";
import { violations } from "./schema-check.mjs";

const require = createRequire(import.meta.url);
// One fake OpenAI server for every node test: the VS Code extension's.
const { startFakeOpenAI } = require("../../editors/vscode/test/fake-openai.js");

/** Bound on every wait. */
export const WAIT_MS = 20_000;
/** Bound on a process's exit after its stdin closes. */
const EXIT_WAIT_MS = 5_000;

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

let built;
/** The scv binary: $SCV_BIN, or built once per test process. */
export function scvBinary() {
  if (process.env.SCV_BIN) return process.env.SCV_BIN;
  if (!built) {
    const dir = mkdtempSync(path.join(os.tmpdir(), "scv-acp-bin-"));
    built = path.join(dir, "scv");
    execFileSync("go", ["build", "-o", built, "./cmd/scv"], { cwd: REPO_ROOT, stdio: "inherit" });
    process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  }
  return built;
}

/** Resolves once probe() returns something truthy; probe runs on every change. */
function waitOn(listeners, probe, what, describe) {
  const first = probe();
  if (first) return Promise.resolve(first);
  return new Promise((resolve, reject) => {
    const check = () => {
      let v;
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
      }
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`timed out after ${WAIT_MS} ms waiting for ${what}\n${describe()}`));
    }, WAIT_MS);
    const done = () => {
      clearTimeout(timer);
      listeners.delete(check);
    };
    listeners.add(check);
  });
}

/**
 * A test's world: an SCV_HOME whose config points at a fake OpenAI
 * endpoint, and a workspace.
 */
export class World {
  static async create({ replies = [], files = {}, config = "" } = {}) {
    const w = new World();
    w.root = mkdtempSync(path.join(os.tmpdir(), "scv-acp-it-"));
    w.home = path.join(w.root, "home");
    w.workspace = path.join(w.root, "workspace");
    mkdirSync(w.home, { recursive: true, mode: 0o700 });
    mkdirSync(w.workspace, { recursive: true });
    w.socket = path.join(w.home, "server.sock");
    w.fake = await startFakeOpenAI(...replies);
    writeFileSync(
      path.join(w.home, "config.toml"),
      `[provider]\nkind = "openai"\nbase_url = "${w.fake.baseUrl}"\napi_key = "test-key"\nmodel = "fake-model"\n` + config,
    );
    for (const [rel, content] of Object.entries(files)) w.write(rel, content);
    w.children = [];
    return w;
  }

  write(rel, content) {
    const p = path.join(this.workspace, rel);
    mkdirSync(path.dirname(p), { recursive: true });
    writeFileSync(p, content);
    return p;
  }

  read(rel) {
    return readFileSync(path.join(this.workspace, rel), "utf8");
  }

  get env() {
    return { PATH: process.env.PATH, HOME: this.home, SCV_HOME: this.home, SCV_SOCKET: this.socket, TMPDIR: os.tmpdir() };
  }

  spawn(args) {
    const child = spawn(scvBinary(), args, { cwd: this.workspace, env: this.env, stdio: ["pipe", "pipe", "pipe"] });
    const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve(code ?? signal)));
    this.children.push({ child, exited });
    return { child, exited };
  }

  /** Starts `scv daemon` on this world's socket; it is stopped with the world. */
  async startDaemon() {
    const { child } = this.spawn(["daemon", "--socket", this.socket]);
    let stderr = "";
    const listeners = new Set();
    child.stderr.on("data", (d) => {
      stderr += d;
      for (const l of [...listeners]) l();
    });
    child.on("exit", () => {
      for (const l of [...listeners]) l();
    });
    // The daemon logs this line once its socket accepts connections.
    await waitOn(listeners, () => stderr.includes("scv daemon listening") || child.exitCode !== null, "scv daemon to listen", () => stderr);
    assert.equal(child.exitCode, null, `scv daemon exited:\n${stderr}`);
    return child;
  }

  async close() {
    for (const { child, exited } of this.children.reverse()) {
      child.stdin.end();
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const t = setTimeout(() => child.kill("SIGKILL"), EXIT_WAIT_MS);
      await exited;
      clearTimeout(t);
    }
    await this.fake.close();
    rmSync(this.root, { recursive: true, force: true });
  }
}

/**
 * One `scv acp` and the official client connected to it. updates holds
 * every session/update's params; permissions every request_permission,
 * each with answer(optionId | "cancelled") and whether it was withdrawn.
 */
export class Agent {
  constructor(world, args) {
    this.world = world;
    this.updates = [];
    this.permissions = [];
    this.lines = [];
    this.invalid = [];
    this.stderr = "";
    this.listeners = new Set();
    this.sent = new Map(); // id of a client request → its method
    // The editor's buffers (absolute path → text) that fs/read_text_file
    // answers from, and every fs request scv made.
    this.buffers = new Map();
    this.fsRequests = [];
    const { child, exited } = world.spawn(["acp", ...args]);
    this.child = child;
    this.exited = exited;
    child.stderr.on("data", (d) => (this.stderr += d));
    child.on("exit", () => this.changed());

    // Every line scv writes is checked before the SDK parses it.
    let pending = "";
    const check = new TransformStream({
      transform: (chunk, controller) => {
        pending += Buffer.from(chunk).toString("utf8");
        let nl;
        while ((nl = pending.indexOf("\n")) >= 0) {
          const line = pending.slice(0, nl);
          pending = pending.slice(nl + 1);
          if (!line.trim()) continue;
          this.lines.push(line);
          for (const v of violations(line, (id) => this.sent.get(id))) this.invalid.push(`${v.slice(0, 1500)}\n  in: ${line.slice(0, 500)}`);
        }
        controller.enqueue(chunk);
      },
    });
    const raw = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout).pipeThrough(check));
    const out = raw.writable.getWriter();
    const writable = new WritableStream({
      write: (msg) => {
        if (typeof msg.method === "string" && msg.id !== undefined) this.sent.set(msg.id, msg.method);
        return out.write(msg);
      },
      close: () => out.close(),
    });

    const app = acp
      .client()
      .onNotification(acp.methods.client.session.update, ({ params }) => {
        this.updates.push(params);
        this.changed();
      })
      .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
        this.fsRequests.push({ method: "read", params });
        this.changed();
        return { content: this.buffers.get(params.path) ?? "" };
      })
      .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
        this.fsRequests.push({ method: "write", params });
        this.buffers.set(params.path, params.content);
        this.changed();
        return {};
      })
      .onRequest(acp.methods.client.session.requestPermission, ({ params, signal }) => {
        return new Promise((resolve) => {
          const p = { params, withdrawn: false };
          p.answer = (optionId) => resolve(optionId === "cancelled" ? { outcome: { outcome: "cancelled" } } : { outcome: { outcome: "selected", optionId } });
          signal.addEventListener("abort", () => {
            p.withdrawn = true;
            this.changed();
            resolve({ outcome: { outcome: "cancelled" } });
          });
          this.permissions.push(p);
          this.changed();
        });
      });
    this.conn = app.connect({ writable, readable: raw.readable });
    this.ctx = this.conn.agent;
  }

  static async start(world, args = ["--daemon=never"], init = {}) {
    const a = new Agent(world, args);
    a.init = await a.ctx.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
      clientInfo: { name: "scv-acp-test", version: "0" },
      ...init,
    });
    return a;
  }

  changed() {
    for (const l of [...this.listeners]) l();
  }

  request(method, params, options) {
    return this.ctx.request(method, params, options);
  }

  notify(method, params) {
    return this.ctx.notify(method, params);
  }

  async newSession(cwd = this.world.workspace) {
    return this.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  }

  prompt(sessionId, text) {
    return this.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
  }

  describe() {
    return `scv wrote:\n${this.lines.slice(-40).join("\n")}\nstderr:\n${this.stderr}`;
  }

  waitFor(probe, what) {
    return waitOn(this.listeners, probe, what, () => this.describe());
  }

  /** The first update (from index from) of kind whose update satisfies pred. */
  update(kind, pred = () => true, from = 0) {
    return this.waitFor(() => {
      for (let i = from; i < this.updates.length; i++) {
        const u = this.updates[i].update;
        if (u.sessionUpdate === kind && pred(u, this.updates[i])) return { u, i: i + 1 };
      }
      return undefined;
    }, `a ${kind} update`);
  }

  /** The n-th permission request (0-based). */
  permission(n = 0) {
    return this.waitFor(() => this.permissions[n], `permission request #${n}`);
  }

  /** The text of the agent_message_chunks of a session so far. */
  text(sessionId) {
    return this.updates
      .filter((u) => u.sessionId === sessionId && u.update.sessionUpdate === "agent_message_chunk")
      .map((u) => u.update.content.text)
      .join("");
  }

  /** Closes the client's side; asserts every message validated and scv exits 0. */
  async stop() {
    this.conn.close();
    this.child.stdin.end();
    const t = setTimeout(() => this.child.kill("SIGKILL"), EXIT_WAIT_MS);
    const code = await this.exited;
    clearTimeout(t);
    assert.deepEqual(this.invalid, [], `scv sent messages that do not validate against the SDK's schema\n${this.stderr}`);
    assert.equal(code, 0, `scv acp exits 0 when its client closes\n${this.stderr}`);
  }
}

/** Settles as promise does, or rejects after WAIT_MS naming what was awaited. */
export function within(promise, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${WAIT_MS} ms waiting for ${what}`)), WAIT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
