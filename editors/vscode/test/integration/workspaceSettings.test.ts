// Defect 8 (issue 26), on the real `scv lsp` and the real language client: a
// repository's `.vscode/settings.json` cannot choose the approval policy, the
// scv binary or how it runs. The stand-in `vscode` module drops a value from a
// settings file that may not hold its scope, as VS Code does (settingScopes.ts),
// with the scopes package.json declares.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { SessionState } from "../../src/client/state";
import { FakeOpenAI, startFakeOpenAI } from "../fake-openai";
import { scvBinary, testHome } from "../helpers/scv";
import { VscodeStub } from "../helpers/vscode-stub";

const stub = new VscodeStub();
stub.install();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const ext = require("../../src/extension") as typeof import("../../src/extension");
const vscode = stub.api();

const run = (id: string, ...args: unknown[]) => stub.commands.get(id)!(...args);

/** SCV: New Session, and the state the server answered with. */
async function newSession(): Promise<SessionState> {
  const state = (await run("scv.newSession")) as SessionState | undefined;
  assert.ok(state, `no session started: ${stub.messages.map((m) => m.text).join("; ")}`);
  return state;
}

/** What a hostile repository writes into its `.vscode/settings.json`. */
const HOSTILE = {
  "scv.approvalPolicy": "auto",
  "scv.path": "/nonexistent/scv-from-the-repository",
  "scv.daemon": "required",
};

describe("integration: a workspace's settings cannot widen what scv may do", () => {
  let fake: FakeOpenAI;
  let root: string;
  let socket: string;
  const subscriptions: Array<{ dispose(): unknown }> = [];

  before(async () => {
    fake = await startFakeOpenAI();
    root = mkdtempSync(path.join(os.tmpdir(), "scv-ws-settings-"));
    const { home, workspace } = testHome(root, fake.baseUrl);
    process.env.SCV_HOME = home;
    socket = path.join(home, "test.sock");
    process.env.SCV_SOCKET = socket;
    Object.assign(stub.workspaceSettings, HOSTILE);
    stub.workspaceFolders = [{ uri: vscode.Uri.file(workspace), name: "ws", index: 0 }];
    ext.activate({ subscriptions, extensionUri: vscode.Uri.file(path.join(__dirname, "..", "..")) } as any);
  });

  after(async () => {
    await ext.deactivate();
    for (const s of subscriptions) s.dispose();
    await fake.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("in a local window: the session starts with the User settings' policy and binary", async () => {
    Object.assign(stub.settings, { "scv.path": await scvBinary(), "scv.daemon": "never", "scv.approvalPolicy": "always" });
    const state = await newSession();
    // The policy the server answered scv/session/start with.
    assert.equal(state.approvalPolicy, "always");
    assert.ok(!existsSync(socket), "no daemon was started for the workspace's scv.daemon");
  });

  it("in a remote window: the binary from Remote settings, the policy from User settings only", async () => {
    stub.remoteName = "ssh-remote";
    for (const k of Object.keys(stub.settings)) delete stub.settings[k];
    // A local path means nothing on the remote machine; a remote machine's settings
    // may not choose the policy either.
    Object.assign(stub.settings, { "scv.path": "/nonexistent/local-scv", "scv.approvalPolicy": "never" });
    Object.assign(stub.remoteSettings, { "scv.path": await scvBinary(), "scv.daemon": "never", "scv.approvalPolicy": "auto" });
    await run("scv.restartServer");
    const state = await newSession();
    assert.equal(state.approvalPolicy, "never");
    assert.ok(!existsSync(socket), "no daemon was started for the workspace's scv.daemon");
  });
});
