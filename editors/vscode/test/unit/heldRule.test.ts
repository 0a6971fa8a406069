// A rule of the user's config held for confirmation (scv/approval/requested
// `notice`, `confirmsRule`): every approval UI of the extension shows the
// notice before the user answers, and "Always allow" says it confirms the rule.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { JSDOM } from "jsdom";
import { ScvConnection } from "../../src/client/connection";
import { reduceAll } from "../../src/client/reducer";
import { renderChat } from "../../src/client/render";
import { SessionStore } from "../../src/client/store";
import { FakePeer } from "../helpers/fakePeer";
import { ev, snapshot } from "../helpers/fixtures";
import { VscodeStub } from "../helpers/vscode-stub";

const stub = new VscodeStub();
stub.install();
// Loaded after the stub so their `require("vscode")` gets it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const actions = require("../../src/views/chatActions") as typeof import("../../src/views/chatActions");
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ApprovalNotifier } = require("../../src/approvals") as typeof import("../../src/approvals");

const NOTICE = `the rule "shell:touch *" in /u/.scv/config.toml would allow this call, but it appeared while a tool call ran <b>x</b>`;
const held = {
  sessionId: "s1", seq: 2, turnId: "t1", approvalId: "a1", callId: "c1", name: "shell", risk: "exec", cwd: "/work/demo",
  summary: "$ touch pwned", suggestedRule: "shell:touch *", notice: NOTICE, confirmsRule: true,
};

function doc(html: string) {
  return new JSDOM(`<!DOCTYPE html><body>${html}</body>`).window.document;
}

describe("a held rule in the chat", () => {
  it("shows the notice on the card, escaped, before the answers, and Always allow says it confirms the rule", () => {
    const s = reduceAll(undefined, [
      { type: "snapshot", snapshot: snapshot({ seq: 0 }) },
      ev("scv/turn/started", { sessionId: "s1", seq: 1, turnId: "t1" }),
      ev("scv/approval/requested", held),
    ]);
    const card = doc(renderChat(s)).querySelector('.approval[data-approval-id="a1"]');
    const notice = card?.querySelector(".approval-notice");
    assert.equal(notice?.textContent, NOTICE);
    assert.ok(notice?.compareDocumentPosition(card!.querySelector(".approval-buttons")!)! & 4, "the notice precedes the answers");
    assert.equal(card?.querySelector('button[data-action="allow-rule"]')?.textContent, "Always allow shell:touch * (confirms the held rule)");
  });

  it("shows it on an approval the snapshot lists without a card", () => {
    const s = reduceAll(undefined, [{ type: "snapshot", snapshot: snapshot({ seq: 2, state: "running", turnId: "t1", pendingApprovals: [held] as never }) }]);
    assert.equal(doc(renderChat(s)).querySelector(".approval-notice")?.textContent, NOTICE);
  });

  it("a rule that is not the held one keeps its plain label", () => {
    const s = reduceAll(undefined, [
      { type: "snapshot", snapshot: snapshot({ seq: 0 }) },
      ev("scv/turn/started", { sessionId: "s1", seq: 1, turnId: "t1" }),
      ev("scv/approval/requested", { ...held, suggestedRule: "shell:sh build.sh", confirmsRule: undefined }),
    ]);
    const d = doc(renderChat(s));
    assert.equal(d.querySelector(".approval-notice")?.textContent, NOTICE);
    assert.equal(d.querySelector('button[data-action="allow-rule"]')?.textContent, "Always allow shell:sh build.sh");
  });
});

async function session(handlers: ConstructorParameters<typeof FakePeer>[0]) {
  const peer = new FakePeer({ "scv/session/start": () => snapshot({ seq: 0 }), ...handlers });
  const store = new SessionStore(new ScvConnection(peer));
  await store.start({ cwd: "/work/demo" });
  peer.emit("scv/turn/started", { sessionId: "s1", seq: 1, turnId: "t1" });
  return { peer, store };
}

describe("a held rule's Always allow", () => {
  it("asks to confirm the rule, with the notice, then approves with it", async () => {
    const { peer, store } = await session({ "scv/approval/resolve": () => ({}) });
    peer.emit("scv/approval/requested", held);
    await stub.until(() => store.state?.approvals.length, "the approval", 5000);
    stub.answers.push("Confirm and Always Allow");
    await actions.allowAlways(store, "a1");
    const asked = stub.messages.find((m) => m.text === "Confirm the held rule shell:touch * and always allow it?");
    assert.deepEqual(asked?.items, ["Confirm and Always Allow"]);
    assert.ok(asked?.detail?.startsWith(NOTICE), asked?.detail);
    assert.deepEqual(peer.called("scv/approval/resolve")[0].params, { sessionId: "s1", approvalId: "a1", decision: "approve", allowRule: "shell:touch *" });
  });
});

describe("a held rule's notification", () => {
  it("carries the notice and says which answer confirms it", async () => {
    const { peer, store } = await session({});
    const chat = { visible: false, reveal: async () => {} };
    const notifier = new ApprovalNotifier({ store } as never, chat as never);
    stub.answers.push(undefined);
    peer.emit("scv/approval/requested", held);
    const m = await stub.until(() => stub.messages.find((x) => x.text.startsWith("SCV asks to run shell")), "the notification", 5000);
    assert.ok(m.text.includes(`Note: ${NOTICE}.`), m.text);
    assert.match(m.text, /"Show in Chat" offers the answer that confirms it/);
    notifier.dispose();
  });
});
