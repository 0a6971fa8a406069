// The chat's actions (src/views/chatActions.ts) on the stand-in `vscode` module
// and a scripted server: what they ask the user, and what they send.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ScvConnection } from "../../src/client/connection";
import { SessionStore } from "../../src/client/store";
import { FakePeer } from "../helpers/fakePeer";
import { snapshot } from "../helpers/fixtures";
import { VscodeStub } from "../helpers/vscode-stub";

const stub = new VscodeStub();
stub.install();
// Loaded after the stub so its `require("vscode")` gets it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const actions = require("../../src/views/chatActions") as typeof import("../../src/views/chatActions");

async function session(handlers: ConstructorParameters<typeof FakePeer>[0]) {
  const peer = new FakePeer({ "scv/session/start": () => snapshot({ seq: 0 }), ...handlers });
  const store = new SessionStore(new ScvConnection(peer));
  await store.start({ cwd: "/work/demo" });
  peer.emit("scv/turn/started", { sessionId: "s1", seq: 1, turnId: "t1" });
  peer.emit("scv/approval/requested", {
    sessionId: "s1", seq: 2, turnId: "t1", approvalId: "a1", callId: "c1", name: "shell", risk: "exec", cwd: "/work/demo",
    summary: "$ go test ./...", suggestedRule: "shell:go test *",
  });
  return { peer, store };
}

describe("Always allow", () => {
  it("asks in a modal naming the rule; confirmed, approves with allowRule", async () => {
    const { peer, store } = await session({ "scv/approval/resolve": () => ({ ruleAddedTo: "/u/.scv/config.toml" }) });
    stub.answers.push("Always Allow");
    await actions.allowAlways(store, "a1");
    const asked = stub.messages.find((m) => m.text === "Always allow shell:go test *?");
    assert.deepEqual(asked?.items, ["Always Allow"]);
    assert.deepEqual(peer.called("scv/approval/resolve")[0].params, { sessionId: "s1", approvalId: "a1", decision: "approve", allowRule: "shell:go test *" });
    assert.ok(stub.messages.some((m) => /allowed shell:go test \* \(in \/u\/\.scv\/config\.toml\)/.test(m.text)));
  });

  it("dismissed, sends nothing", async () => {
    const { peer, store } = await session({ "scv/approval/resolve": () => ({}) });
    stub.answers.push(undefined);
    await actions.allowAlways(store, "a1");
    assert.equal(peer.called("scv/approval/resolve").length, 0);
  });
});

describe("model and policy pickers", () => {
  it("lists the models and switches to the one picked", async () => {
    const { peer, store } = await session({
      "scv/model/list": () => ({ models: [{ id: "test-model", source: "config" }, { id: "big", source: "provider" }] }),
      "scv/session/configure": (p) => ({ model: p.model, approvalPolicy: "on-risk" }),
    });
    let shown: Array<{ label: string; description?: string }> = [];
    stub.answers.push((items: typeof shown) => {
      shown = items;
      return items.find((i) => i.label === "big");
    });
    await actions.pickModel(store);
    assert.deepEqual(shown.map((i) => [i.label, i.description]), [["test-model", "current · configured"], ["big", "from the provider"]]);
    assert.deepEqual(peer.called("scv/session/configure")[0].params, { sessionId: "s1", model: "big" });
  });

  it("switches the policy", async () => {
    const { peer, store } = await session({ "scv/session/configure": (p) => ({ model: "m", approvalPolicy: p.approvalPolicy }) });
    stub.answers.push((items: Array<{ label: string }>) => items.find((i) => i.label === "always"));
    await actions.pickPolicy(store);
    assert.deepEqual(peer.called("scv/session/configure")[0].params, { sessionId: "s1", approvalPolicy: "always" });
  });
});

describe("Undo this turn", () => {
  it("confirmed, reverts; conflicts are said and kept under the turn for Revert anyway", async () => {
    const { peer, store } = await session({
      "scv/turn/revert": (p) => (p.force ? { reverted: ["a.go"], conflicts: [] } : { reverted: [], conflicts: [{ path: "a.go", diff: "-x\n+y\n" }] }),
    });
    stub.answers.push("Undo");
    await actions.undoTurn(store, "t1", false);
    assert.deepEqual(peer.called("scv/turn/revert")[0].params, { sessionId: "s1", turnId: "t1" });
    assert.ok(stub.messages.some((m) => m.level === "warning" && /1 file\(s\) changed since the turn/.test(m.text)));
    stub.answers.push(undefined);
    await actions.undoTurn(store, "t1", true);
    assert.equal(peer.called("scv/turn/revert").length, 1, "dismissing the confirmation sends nothing");
    stub.answers.push("Revert Anyway");
    await actions.undoTurn(store, "t1", true);
    assert.deepEqual(peer.called("scv/turn/revert")[1].params, { sessionId: "s1", turnId: "t1", force: true });
  });
});

describe("paths in answers", () => {
  it("are taken in the session's folder; absolute ones as they are; ~ is not expanded", () => {
    assert.equal(actions.resolveAnswerPath("/work/demo", "src/a.go"), "/work/demo/src/a.go");
    assert.equal(actions.resolveAnswerPath("/work/demo", "/etc/hosts"), "/etc/hosts");
    assert.equal(actions.resolveAnswerPath("/work/demo", "~/x.md"), undefined);
  });
});
