// An MCP server (newline-delimited JSON-RPC on stdio) that answers its
// first tools/list and never another. Its tool "poke" says the list
// changed and answers only once the client has handled that notice (a
// ping sent after it is answered), so a refresh is surely in flight when
// the call returns.
"use strict";
const readline = require("readline");

const send = (msg) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...msg }) + "\n");
let lists = 0;
const pokes = new Map(); // ping id -> the tools/call id it answers

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return;
  }
  if (msg.method === "initialize") {
    send({
      id: msg.id,
      result: {
        protocolVersion: msg.params.protocolVersion,
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: "never-refreshes", version: "1" },
      },
    });
  } else if (msg.method === "tools/list") {
    if (++lists === 1) {
      send({ id: msg.id, result: { tools: [{ name: "poke", inputSchema: { type: "object", properties: {} } }] } });
    }
  } else if (msg.method === "tools/call") {
    const ping = "poke-" + msg.id;
    pokes.set(ping, msg.id);
    send({ method: "notifications/tools/list_changed" });
    send({ id: ping, method: "ping" });
  } else if (msg.method === undefined && pokes.has(msg.id)) {
    send({ id: pokes.get(msg.id), result: { content: [{ type: "text", text: "poked" }] } });
    pokes.delete(msg.id);
  } else if (msg.id !== undefined && msg.method !== undefined) {
    send({ id: msg.id, error: { code: -32601, message: "method not found" } });
  }
});
