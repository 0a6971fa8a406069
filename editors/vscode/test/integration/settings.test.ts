// Issue 14, bugs 3 and 4, on the real vscode-languageclient and the real
// `scv lsp`: `scv.trace.server` alone decides whether the JSON-RPC traffic is
// traced (the output channel's log level does not), and a server that cannot
// start says which settings file `scv.path` was read from.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { scvBinary, WAIT_MS } from "../helpers/scv";
import { VscodeStub } from "../helpers/vscode-stub";

const stub = new VscodeStub();
// The output channel at Trace: before the fix, the client traced whatever the
// setting said, even `off`.
stub.outputLogLevel = 1;
stub.install();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const ext = require("../../src/extension") as typeof import("../../src/extension");
const vscode = stub.api();

const run = (id: string, ...args: unknown[]) => stub.commands.get(id)!(...args);
const traced = () => stub.output.filter((l) => /Sending request|Received response/.test(l));
const until = <T>(probe: () => T | undefined | false, what: string) => stub.until(probe, what, WAIT_MS);

describe("integration: settings in a stand-in VS Code", () => {
  let root: string;
  const subscriptions: Array<{ dispose(): unknown }> = [];

  before(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), "scv-settings-"));
    const home = path.join(root, "home");
    mkdirSync(home);
    process.env.SCV_HOME = home;
    process.env.SCV_SOCKET = path.join(home, "test.sock");
    stub.settings["scv.path"] = await scvBinary();
    stub.settings["scv.daemon"] = "never";
    stub.settings["scv.trace.server"] = "off";
    stub.workspaceFolders = [{ uri: vscode.Uri.file(root), name: "ws", index: 0 }];
    ext.activate({ subscriptions, extensionUri: vscode.Uri.file(path.join(__dirname, "..", "..")) } as any);
  });

  after(async () => {
    await ext.deactivate();
    for (const s of subscriptions) s.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it("traces nothing with scv.trace.server off, though the output channel is at Trace", async () => {
    await run("scv.restartServer");
    await run("scv.queue.refresh");
    assert.deepEqual(traced(), []);
  });

  it("traces the traffic into “SCV Trace” once scv.trace.server is messages, and stops at off", async () => {
    stub.setSetting("scv.trace.server", "messages");
    // Said at once, before any traffic: an empty channel would look like no trace.
    assert.ok(stub.channels.get("SCV Trace")?.some((l) => /^scv\.trace\.server = "messages": tracing the JSON-RPC traffic/.test(l)), "the tracing line");
    await run("scv.attachSession"); // any request: scv/session/list
    // The request was answered, so its trace is written.
    assert.ok(stub.channels.get("SCV Trace")?.some((l) => /Sending request '[^']*scv\/session\/list/.test(l)), "a traced request");
    assert.ok(!stub.channels.get("SCV Trace")!.some((l) => /^Params:/m.test(l)), "messages does not trace params");

    stub.setSetting("scv.trace.server", "verbose");
    await run("scv.attachSession");
    assert.ok(stub.channels.get("SCV Trace")?.some((l) => /Params:/.test(l)), "a traced request with its params");

    stub.setSetting("scv.trace.server", "off");
    assert.ok(stub.channels.get("SCV Trace")?.includes('scv.trace.server = "off": tracing stopped.'), "the stopped line");
    const before = traced().length;
    await run("scv.attachSession");
    await run("scv.attachSession");
    assert.equal(traced().length, before, "off stops the trace");
  });

  it("names the settings scv.path was read from when the server cannot start", async () => {
    // scv.path is a machine setting: in a remote window the Remote settings hold it.
    stub.remoteName = "ssh-remote";
    stub.remoteSettings["scv.path"] = "/nonexistent/scv";
    await run("scv.restartServer");
    const shown = await until(() => stub.messages.find((m) => m.level === "error" && /Could not start/.test(m.text)), "the error");
    assert.match(shown.text, /scv\.path = "\/nonexistent\/scv" from Remote \[ssh-remote\] settings/);
    assert.match(shown.text, /read: Remote \[ssh-remote\] settings "\/nonexistent\/scv", default "scv"; User, Workspace and Folder settings cannot set it/);
    assert.match(shown.text, /on the remote machine \(ssh-remote\)/);
  });
});
