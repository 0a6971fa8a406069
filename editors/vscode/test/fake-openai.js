// A fake OpenAI-compatible endpoint for tests: POST /v1/chat/completions with
// `stream: true` answers Server-Sent Events the way OpenAI does — text deltas,
// tool-call deltas split by index, a usage chunk when
// `stream_options.include_usage` is set, then `data: [DONE]`.
// Replies come from a FIFO the test scripts; a reply can be held open so a test
// can cancel while the model is "still talking".
"use strict";

const http = require("node:http");
const { EventEmitter } = require("node:events");

/** Pieces an argument string is cut into, so clients must join deltas. */
const ARGUMENT_PIECE_CHARS = 7;
/** Longest request body accepted (a guard against a runaway client). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

/**
 * @typedef {{id: string, name: string, arguments: object | string}} ToolCall
 * @typedef {{
 *   text?: string | string[],
 *   reasoning?: string[],
 *   toolCalls?: ToolCall[],
 *   usage?: {prompt_tokens: number, completion_tokens: number},
 *   hold?: boolean,
 *   status?: number,
 *   error?: string,
 * }} Reply
 */

class FakeOpenAI extends EventEmitter {
  constructor() {
    super();
    /** @type {Reply[]} */
    this.replies = [];
    /** Request bodies, parsed, in arrival order. */
    this.requests = [];
    /** Authorization headers seen, in arrival order. */
    this.authorizations = [];
    /** Number of streams the client closed before they ended. */
    this.aborted = 0;
    this.held = new Set();
    this.sockets = new Set();
    this.server = http.createServer((req, res) => this.handle(req, res));
    this.server.on("connection", (s) => {
      this.sockets.add(s);
      s.on("close", () => this.sockets.delete(s));
    });
  }

  /** Starts listening on a free loopback port. */
  listen() {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(0, "127.0.0.1", () => {
        const { port } = /** @type {import("node:net").AddressInfo} */ (this.server.address());
        this.port = port;
        this.baseUrl = `http://127.0.0.1:${port}/v1`;
        resolve(this);
      });
    });
  }

  /** Appends replies to the FIFO. */
  script(...replies) {
    this.replies.push(...replies);
    return this;
  }

  /** Lets every held reply finish. */
  release() {
    for (const finish of [...this.held]) finish();
  }

  /** Resolves when `count` requests have arrived (bounded by `timeoutMs`). */
  waitForRequests(count, timeoutMs = 10000) {
    return this.waitFor(() => this.requests.length >= count, `${count} provider request(s)`, timeoutMs);
  }

  /** Resolves when a held reply is open and waiting (bounded by `timeoutMs`). */
  waitForHeld(timeoutMs = 10000) {
    return this.waitFor(() => this.held.size > 0, "a held provider reply", timeoutMs);
  }

  /** Resolves when the client has closed `count` streams early (bounded by `timeoutMs`). */
  waitForAborted(count = 1, timeoutMs = 10000) {
    return this.waitFor(() => this.aborted >= count, `${count} aborted provider stream(s)`, timeoutMs);
  }

  waitFor(cond, what, timeoutMs) {
    if (cond()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!cond()) return;
        clearTimeout(timer);
        this.off("change", check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.off("change", check);
        reject(new Error(`fake-openai: timed out waiting for ${what}`));
      }, timeoutMs);
      this.on("change", check);
    });
  }

  close() {
    this.release();
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  handle(req, res) {
    if (req.method !== "POST" || !/\/chat\/completions$/.test(req.url ?? "")) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `fake-openai: no route ${req.method} ${req.url}` } }));
      return;
    }
    const chunks = [];
    let size = 0;
    req.on("data", (c) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) req.destroy();
      else chunks.push(c);
    });
    req.on("end", () => {
      let body;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch (err) {
        res.writeHead(400, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `fake-openai: bad JSON: ${err.message}` } }));
        return;
      }
      this.requests.push(body);
      this.authorizations.push(req.headers.authorization ?? "");
      const reply = this.replies.shift();
      this.emit("change");
      if (!reply) {
        res.writeHead(400, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "fake-openai: no scripted reply left", type: "invalid_request_error" } }));
        return;
      }
      if (reply.status) {
        res.writeHead(reply.status, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: reply.error ?? `fake-openai: status ${reply.status}` } }));
        return;
      }
      this.stream(body, reply, res);
    });
  }

  stream(body, reply, res) {
    const id = `chatcmpl-fake-${this.requests.length}`;
    const model = body.model ?? "fake-model";
    const created = 1700000000;
    let closedEarly = false;
    let finished = false;
    res.on("close", () => {
      if (!finished) {
        closedEarly = true;
        this.aborted++;
        this.emit("change");
      }
    });
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    const send = (choices, extra = {}) => {
      if (closedEarly) return;
      res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices, ...extra })}\n\n`);
    };
    const delta = (d, finish = null) => send([{ index: 0, delta: d, finish_reason: finish }]);

    delta({ role: "assistant", content: "" });
    for (const r of reply.reasoning ?? []) delta({ reasoning_content: r });
    const texts = reply.text === undefined ? [] : Array.isArray(reply.text) ? reply.text : [reply.text];
    const head = reply.hold ? texts.slice(0, 1) : texts;
    const tail = reply.hold ? texts.slice(1) : [];
    for (const t of head) delta({ content: t });

    const finish = () => {
      if (closedEarly || finished) return;
      for (const t of tail) delta({ content: t });
      const calls = reply.toolCalls ?? [];
      calls.forEach((call, index) => {
        const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
        delta({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] });
        for (let i = 0; i < args.length; i += ARGUMENT_PIECE_CHARS) {
          delta({ tool_calls: [{ index, function: { arguments: args.slice(i, i + ARGUMENT_PIECE_CHARS) } }] });
        }
      });
      delta({}, calls.length ? "tool_calls" : "stop");
      if (body.stream_options?.include_usage) {
        const usage = reply.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
        send([], { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } });
      }
      res.write("data: [DONE]\n\n");
      finished = true;
      res.end();
    };

    if (!reply.hold) {
      finish();
      return;
    }
    const release = () => {
      this.held.delete(release);
      this.emit("change");
      finish();
    };
    this.held.add(release);
    res.on("close", () => {
      if (this.held.delete(release)) this.emit("change");
    });
    this.emit("change");
  }
}

/** Starts a fake endpoint with these replies queued. */
async function startFakeOpenAI(...replies) {
  const fake = new FakeOpenAI();
  fake.script(...replies);
  return fake.listen();
}

module.exports = { FakeOpenAI, startFakeOpenAI };

// `node test/fake-openai.js` serves a canned reply forever, for poking by hand.
if (require.main === module) {
  const fake = new FakeOpenAI();
  const refill = () => fake.script({ text: ["Hello ", "from ", "fake-openai."] });
  fake.on("change", () => {
    if (fake.replies.length === 0) refill();
  });
  refill();
  fake.listen().then((f) => console.log(`fake-openai listening at ${f.baseUrl}`));
}
