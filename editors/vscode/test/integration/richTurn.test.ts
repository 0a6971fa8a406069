// Steer, configure, model list and persistent approval rules (issue 12) against
// the real server. Skipped, saying so, by a server that does not advertise them
// (the editor side can land before the server side).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { before, describe, it } from "node:test";
import { scvErrorCode } from "../../src/client/connection";
import { Methods } from "../../src/client/protocol";
import type { TurnEntry } from "../../src/client/state";
import type { FakeOpenAI } from "../fake-openai";
import { ScvProcess, withServer } from "../helpers/scv";

describe("integration: steer, configure, models, allow rules", () => {
  let fake: FakeOpenAI;
  let scv: ScvProcess;
  let advertised: string[] = [];
  withServer({ initialize: false }, (f, s) => {
    fake = f;
    scv = s;
  });
  before(async () => {
    advertised = (await scv.initialize()).scv?.methods ?? [];
  });
  const needs = (t: { skip(m: string): void }, ...methods: string[]) => {
    const missing = methods.filter((m) => !advertised.includes(m));
    if (missing.length) t.skip(`the server does not advertise ${missing.join(", ")}`);
    return missing.length === 0;
  };

  it("a steer joins the running turn and reaches the model; a steer after the turn is turn_not_found", async (t) => {
    if (!needs(t, Methods.turnSteer)) return;
    fake.script({ text: ["Looking", " at it"], hold: true }, { text: "Only the greeting, then." });
    const store = scv.store();
    const { sessionId } = await store.start({ cwd: scv.workspace });
    const r = await store.sendPrompt("fix everything");
    const turnId = r.status === "started" ? r.turnId : "";
    await fake.waitForHeld();
    await scv.waitState(store, (st) => st.status === "running" && st.transcript.some((e) => e.kind === "turn" && e.blocks.length > 0), "the first delta");
    assert.deepEqual(await store.steer("only the greeting package"), { steered: true });
    fake.release();
    // The steer is taken at the next step boundary, which says so with scv/turn/steered.
    const s = await scv.waitState(
      store,
      (st) => st.status === "idle" && st.transcript.some((e) => e.kind === "turn" && e.blocks.some((b) => b.kind === "steer")),
      "scv/turn/steered and the turn's end",
    );
    const turn = s.transcript.find((e): e is TurnEntry => e.kind === "turn" && e.turnId === turnId)!;
    assert.deepEqual(turn.blocks.find((b) => b.kind === "steer"), { kind: "steer", prompt: "only the greeting package" });
    assert.ok(JSON.stringify(fake.requests.at(-1)).includes("only the greeting package"), "the next model request holds the steer");
    await assert.rejects(scv.conn.steer(sessionId, turnId, "too late"), (err) => scvErrorCode(err) === "turn_not_found");
  });

  it("configure switches the model of the next request, and every window hears it", async (t) => {
    if (!needs(t, Methods.sessionConfigure, Methods.modelList)) return;
    const store = scv.store();
    await store.start({ cwd: scv.workspace });
    const { models } = await store.listModels();
    assert.ok(models.some((m) => m.id === "fake-model" && m.source === "config"), JSON.stringify(models));
    // No project file and no --approval flag: the ceiling allows every policy.
    assert.deepEqual(await store.configure({ model: "other-model" }), {
      model: "other-model",
      approvalPolicy: store.state!.approvalPolicy ?? "on-risk",
      allowedPolicies: ["never", "on-risk", "always", "auto"],
    });
    await scv.waitState(store, (s) => s.model === "other-model", "scv/session/configured");
    fake.script({ text: "hi" });
    const before = fake.requests.length;
    await store.sendPrompt("hello");
    await scv.waitState(store, (s) => s.status === "idle" && s.transcript.length > 0, "the turn");
    assert.equal(fake.requests[before].model, "other-model");
  });

  it("Always allow: the approval offers a rule; approving with it writes the user's config", async (t) => {
    if (!needs(t, Methods.approvalResolve, Methods.sessionConfigure)) return;
    fake.script({ toolCalls: [{ id: "call_1", name: "shell", arguments: { command: "echo hi" } }] }, { text: "done" });
    const store = scv.store();
    await store.start({ cwd: scv.workspace, approvalPolicy: "on-risk" });
    await store.sendPrompt("say hi");
    const waiting = await scv.waitState(store, (s) => s.approvals.length === 1, "the approval");
    const rule = waiting.approvals[0].suggestedRule;
    assert.match(rule ?? "", /^shell:echo/);
    const r = await store.allowAlways(waiting.approvals[0].approvalId, rule!);
    assert.ok(r !== false && r.ruleAddedTo, JSON.stringify(r));
    assert.equal(path.dirname(r.ruleAddedTo!), scv.home);
    assert.ok(readFileSync(r.ruleAddedTo!, "utf8").includes(rule!));
    await scv.waitState(store, (s) => s.status === "idle", "the turn's end");
  });
});
