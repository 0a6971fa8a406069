// A minimal scv/* client: JSON-RPC with LSP framing (Content-Length
// headers) over a spawned `scv lsp`, enough to stand for a VS Code or
// Neovim window in the shared-session test.
import assert from "node:assert/strict";
import { WAIT_MS } from "./harness.mjs";

export class LspClient {
  constructor(world, args) {
    const { child, exited } = world.spawn(args);
    this.child = child;
    this.exited = exited;
    this.nextId = 1;
    this.pending = new Map();
    this.events = [];
    this.listeners = new Set();
    this.stderr = "";
    child.stderr.on("data", (d) => (this.stderr += d));
    let buf = Buffer.alloc(0);
    child.stdout.on("data", (d) => {
      buf = Buffer.concat([buf, d]);
      for (;;) {
        const end = buf.indexOf("\r\n\r\n");
        if (end < 0) return;
        const m = /Content-Length: *(\d+)/i.exec(buf.subarray(0, end).toString("ascii"));
        assert.ok(m, "a frame without Content-Length");
        const len = Number(m[1]);
        if (buf.length < end + 4 + len) return;
        this.receive(JSON.parse(buf.subarray(end + 4, end + 4 + len).toString("utf8")));
        buf = buf.subarray(end + 4 + len);
      }
    });
  }

  receive(msg) {
    if (msg.method === undefined) {
      const p = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      if (!p) return;
      if (msg.error) p.reject(Object.assign(new Error(msg.error.message), msg.error));
      else p.resolve(msg.result);
      return;
    }
    if (msg.id !== undefined) {
      this.send({ jsonrpc: "2.0", id: msg.id, result: null }); // server→client requests are not used here
      return;
    }
    this.events.push(msg);
    for (const l of [...this.listeners]) l();
  }

  send(msg) {
    const body = Buffer.from(JSON.stringify(msg), "utf8");
    this.child.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
    this.child.stdin.write(body);
  }

  request(method, params) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.send({ jsonrpc: "2.0", id, method, params });
    });
  }

  async initialize() {
    await this.request("initialize", { processId: process.pid, capabilities: {} });
    this.send({ jsonrpc: "2.0", method: "initialized", params: {} });
  }

  /** The first notification of method whose params satisfy pred. */
  event(method, pred = () => true) {
    const probe = () => this.events.find((e) => e.method === method && pred(e.params))?.params;
    const first = probe();
    if (first) return Promise.resolve(first);
    return new Promise((resolve, reject) => {
      const check = () => {
        const v = probe();
        if (v) {
          done();
          resolve(v);
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out waiting for ${method}; got ${this.events.map((e) => e.method).join(", ")}\n${this.stderr}`));
      }, WAIT_MS);
      const done = () => {
        clearTimeout(timer);
        this.listeners.delete(check);
      };
      this.listeners.add(check);
    });
  }

  async stop() {
    try {
      await this.request("shutdown");
      this.send({ jsonrpc: "2.0", method: "exit" });
    } catch {
      // already gone: the world's close kills it
    }
    await this.exited;
  }
}
