// Validates every message scv sends on an ACP connection against the JSON
// schema the official SDK ships (schema/v1/schema.json). The schema names
// each method's params and result type with `x-method`; a message is held
// to the type of its own method, and a result to the type of the request it
// answers, so a loose union never lets a wrong shape through.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import Ajv2020 from "ajv/dist/2020.js";

const require = createRequire(import.meta.url);
// The package's exports hide its files; its main entry locates the package.
const sdkRoot = path.resolve(path.dirname(require.resolve("@agentclientprotocol/sdk")), "..", "..", "..");
export const SCHEMA_PATH = path.join(sdkRoot, "schema", "v1", "schema.json");

const schema = JSON.parse(readFileSync(SCHEMA_PATH, "utf8"));
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true, logger: false });
ajv.addSchema(schema, "acp");

/** Definitions by x-method: what the agent sends (client side) and answers (agent side). */
const agentRequests = new Map(); // method → params type of a request the agent sends
const agentNotifications = new Map(); // method → params type of a notification the agent sends
const agentResults = new Map(); // method → result type of a request the agent answers
for (const [name, def] of Object.entries(schema.$defs)) {
  const method = def["x-method"];
  if (!method) continue;
  const side = def["x-side"];
  if (side === "client" && name.endsWith("Request")) agentRequests.set(method, name);
  if ((side === "client" || side === "protocol") && name.endsWith("Notification")) agentNotifications.set(method, name);
  if (side === "agent" && name.endsWith("Response")) agentResults.set(method, name);
}

const compiled = new Map();
function validatorOf(ref) {
  let v = compiled.get(ref);
  if (!v) {
    v = ajv.getSchema(`acp#/$defs/${ref}`);
    if (!v) throw new Error(`the schema has no definition ${ref}`);
    compiled.set(ref, v);
  }
  return v;
}
const envelope = ajv.compile({ $ref: "acp#/anyOf/0" });

function check(ref, value, what) {
  const v = validatorOf(ref);
  if (v(value)) return [];
  return [`${what} does not validate as ${ref}: ${ajv.errorsText(v.errors, { dataVar: what })}`];
}

/**
 * Returns what is wrong with one line scv wrote (empty when it is valid).
 * requestMethod(id) names the method of the client request with that id.
 */
export function violations(line, requestMethod) {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (err) {
    return [`not JSON: ${err.message}`];
  }
  if (msg === null || typeof msg !== "object" || Array.isArray(msg)) return ["not a JSON-RPC object"];
  const out = [];
  if (!envelope(msg)) out.push(`not an ACP agent message: ${ajv.errorsText(envelope.errors)}`);
  if (typeof msg.method === "string") {
    const isRequest = "id" in msg;
    const ref = (isRequest ? agentRequests : agentNotifications).get(msg.method);
    if (!ref) out.push(`${msg.method} is not a ${isRequest ? "request" : "notification"} an agent sends`);
    else out.push(...check(ref, msg.params, "params"));
  } else if ("result" in msg) {
    const method = requestMethod(msg.id);
    const ref = method && agentResults.get(method);
    if (!ref) out.push(`a result for id ${JSON.stringify(msg.id)}, which answers no request an agent serves (${method})`);
    else out.push(...check(ref, msg.result, "result"));
  } else if ("error" in msg) {
    out.push(...check("Error", msg.error, "error"));
  } else {
    out.push("neither a request, a notification, nor a response");
  }
  return out;
}
