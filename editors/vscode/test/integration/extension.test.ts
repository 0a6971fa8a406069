// The extension's glue, activated in plain node on a stand-in `vscode` module,
// driving the real `scv lsp` through the real vscode-languageclient: the
// commands, the chat webview's messages, the queue view, the status bar and the
// notifications. (The VS Code host itself cannot run on our machines.)
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { QueueEntry, SessionInfo } from "../../src/client/protocol";
import type { SessionStore } from "../../src/client/store";
import { FakeOpenAI, startFakeOpenAI } from "../fake-openai";
import { scvBinary, testHome, WAIT_MS } from "../helpers/scv";
import { VscodeStub } from "../helpers/vscode-stub";

const stub = new VscodeStub();
stub.install();
// Loaded after the stub so every `require("vscode")` gets it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const ext = require("../../src/extension") as typeof import("../../src/extension");

const pkg = JSON.parse(readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8"));
const vscode = stub.api();

const until = <T>(probe: () => T | undefined | false, what: string) => stub.until(probe, what, WAIT_MS);
const run = (id: string, ...args: unknown[]) => stub.commands.get(id)!(...args);
const status = () => stub.statusItems[0].text as string;
/** The chat HTML a render message carries, whole or in keyed parts. */
const htmlOf = (m: any): string => m?.html ?? (m?.parts ? m.parts.header + m.parts.items.map((i: { html: string }) => i.html).join("") : "");
const lastHtml = () => htmlOf(stub.posted.at(-1));

describe("integration: the extension in a stand-in VS Code", () => {
  let fake: FakeOpenAI;
  let root: string;
  let workspace: string;
  const subscriptions: Array<{ dispose(): unknown }> = [];

  before(async () => {
    fake = await startFakeOpenAI();
    root = mkdtempSync(path.join(os.tmpdir(), "scv-ext-"));
    const made = testHome(root, fake.baseUrl);
    const home = made.home;
    workspace = made.workspace;
    writeFileSync(path.join(workspace, "hello.txt"), "hello\n");
    writeFileSync(path.join(workspace, "lib.go"), "package lib\n\nfunc Add(a, b int) int { return a + b }\n");
    // The server inherits the extension host's environment.
    process.env.SCV_HOME = home;
    process.env.SCV_SOCKET = path.join(home, "test.sock");
    stub.settings["scv.path"] = await scvBinary();
    stub.settings["scv.daemon"] = "never";
    stub.workspaceFolders = [{ uri: vscode.Uri.file(workspace), name: "ws", index: 0 }];
    ext.activate({ subscriptions, extensionUri: vscode.Uri.file(path.join(__dirname, "..", "..")) } as any);
  });

  after(async () => {
    await ext.deactivate();
    for (const s of subscriptions) s.dispose();
    await fake.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("registers every contributed command, the chat view, the queue view and a status bar item", () => {
    const contributed = pkg.contributes.commands.map((c: { command: string }) => c.command).sort();
    assert.deepEqual([...stub.commands.keys()].sort(), contributed);
    assert.ok(stub.webviewProviders.has("scv.chat"));
    assert.ok(stub.treeProviders.has("scv.queue"));
    assert.equal(status(), "$(comment-discussion) SCV");
    assert.equal(stub.statusItems[0].command, "scv.statusMenu");
  });

  it("runs a turn from the chat: prompt, approval card, approve, answer; the status bar follows", async () => {
    const chat = stub.resolveChat();
    assert.match(chat.webview.html, /Content-Security-Policy/);
    chat.receive({ type: "ready" });
    assert.match(lastHtml(), /No SCV session/);

    fake.script(
      { text: ["Editing."], toolCalls: [{ id: "call_e", name: "edit_file", arguments: { path: "hello.txt", old: "hello", new: "hi" } }] },
      { text: ["Edited."] },
    );
    // Typing in the chat with no session starts one in the workspace folder, then sends.
    chat.receive({ type: "send", prompt: "shorten the greeting" });
    const pendingHtml = await until(() => stub.posted.map(htmlOf).find((h) => /data-action="approve"/.test(h)), "the approval card");
    const approvalId = /data-approval-id="([^"]+)"/.exec(pendingHtml)?.[1];
    assert.ok(approvalId);
    assert.match(pendingHtml, /diff-add">\+hi</);
    await until(() => /waiting for approval/.test(status()), "the status bar to say so");

    chat.receive({ type: "action", action: "approve", approvalId });
    // The chat draws at most once per frame: wait for the drawing of the turn's end.
    await until(() => /^\$\(check\) SCV: idle/.test(status()) && /class="usage"/.test(lastHtml()) && lastHtml().includes("Edited."), "the turn's end");
    assert.equal(readFileSync(path.join(workspace, "hello.txt"), "utf8"), "hi\n");
    assert.doesNotMatch(lastHtml(), /data-action="approve"/);
  });

  it("asks with a notification when an approval arrives and the chat is hidden", async () => {
    const chat = stub.resolveChat();
    chat.show(false);
    fake.script({ toolCalls: [{ id: "call_s", name: "shell", arguments: { command: "echo hidden" } }] }, { text: "ran it" });
    stub.answers.push("Approve for Session");
    const requests = fake.requests.length;
    await run("scv.sendPrompt", "run echo");
    const asked = await until(() => stub.messages.find((m) => m.level === "warning" && /shell/.test(m.text)), "the approval notification");
    assert.deepEqual(asked.items, ["Approve", "Deny", "Approve for Session", "Show in Chat"]);
    await until(() => /SCV: idle/.test(status()) && fake.requests.length === requests + 2, "the approved turn's end");
    const toolResult = fake.requests.at(-1).messages.findLast((m: any) => m.role === "tool");
    assert.match(toolResult.content, /hidden/, "the command ran after the approval from the notification");
    chat.show(true);
  });

  it("SCV: Send Selection sends the file URI and range as context", async () => {
    const doc = { uri: vscode.Uri.file(path.join(workspace, "lib.go")), isDirty: false, getText: () => "unused" };
    const sel = { isEmpty: false, start: { line: 2, character: 0 }, end: { line: 2, character: 40 } };
    stub.activeTextEditor = { document: doc, selections: [sel] };
    fake.script({ text: "It adds." });
    stub.answers.push("What does this do?");
    const requests = fake.requests.length;
    await run("scv.sendSelection");
    await until(() => fake.requests.length > requests && /SCV: idle/.test(status()), "the turn");
    const sent = JSON.stringify(fake.requests.at(-1).messages);
    assert.match(sent, /func Add\(a, b int\) int/, "the server read the range and gave it to the model");
    assert.match(sent, /What does this do\?/);
    stub.activeTextEditor = undefined;
  });

  it("the queue view lists queued prompts; edit, move, remove, and a conflict re-syncs with a warning", async () => {
    const tree = stub.treeProviders.get("scv.queue");
    const store = (tree as { server: { store: SessionStore } }).server.store;
    const labels = () => (tree.getChildren() as QueueEntry[]).map((e) => tree.getTreeItem(e).label as string);
    fake.script({ text: ["busy"], hold: true }, { text: "b" });
    await run("scv.sendPrompt", "long job");
    await fake.waitForHeld();
    await until(() => /SCV: running/.test(status()), "running");
    await run("scv.sendPrompt", "queued A");
    await run("scv.sendPrompt", "queued B");
    await until(() => labels().length === 2, "two entries in the tree");
    assert.deepEqual(labels(), ["queued A", "queued B"]);
    assert.match(status(), /2 queued/);
    assert.ok(stub.messages.some((m) => /queued at position 2/.test(m.text)));

    const [a, b] = tree.getChildren() as QueueEntry[];
    stub.answers.push("queued B, edited");
    await run("scv.queue.edit", b);
    await until(() => labels()[1] === "queued B, edited", "the edit");
    await run("scv.queue.moveUp", b);
    await until(() => labels()[0] === "queued B, edited", "the move");

    // This window's copy goes stale (it missed an update): the edit is refused,
    // the queue re-read, and the user told.
    const fresh = store.state!.queue;
    store.dispatch(store.sessionId!, { type: "queue", queue: { ...fresh, entries: fresh.entries.map((e) => ({ ...e, revision: e.revision - 1 })) } });
    stub.answers.push("lost edit");
    await run("scv.queue.edit", a);
    await until(() => stub.messages.find((m) => m.level === "warning" && /queue changed elsewhere/.test(m.text)), "the conflict warning");
    assert.deepEqual(store.state!.queue, fresh);

    await run("scv.queue.remove", a);
    await until(() => labels().length === 1, "the removal");
    fake.release();
    // Between queue/dequeued and turn/started the session is briefly idle: wait for the answer.
    await until(() => labels().length === 0 && /SCV: idle/.test(status()) && lastHtml().includes("<p>b</p>"), "the queue to drain");
    assert.equal(fake.requests.at(-1).messages.at(-1).content, "queued B, edited");
    assert.equal(fake.replies.length, 0, "the removed prompt never reached the model");
  });

  it("Pause and Resume Queue, Cancel Turn, Show Output", async () => {
    await run("scv.pauseQueue");
    await until(() => /paused/.test(status()), "paused");
    await run("scv.resumeQueue");
    await until(() => !/paused/.test(status()), "resumed");

    fake.script({ text: ["slow"], hold: true });
    await run("scv.sendPrompt", "take your time");
    await fake.waitForHeld();
    await until(() => /SCV: running/.test(status()), "running");
    const chat = stub.resolveChat();
    chat.receive({ type: "action", action: "cancel" });
    await until(() => /SCV: idle/.test(status()), "cancelled");
    await fake.waitForAborted(1);

    await run("scv.cancelTurn");
    await until(() => stub.messages.find((m) => /no turn is running/.test(m.text)), "nothing to cancel");
    await run("scv.showOutput");
    assert.ok(stub.executed.some((e) => e.id === "<output.show>"));
  });

  it("SCV: Open Session… lists the sessions and shows the whole transcript of the one picked, every prompt included", async () => {
    const store = (stub.treeProviders.get("scv.queue") as any).server.store as SessionStore;
    const first = store.sessionId!;
    await run("scv.newSession");
    await until(() => store.sessionId !== first && /SCV: idle/.test(status()), "the new session");
    let offered: Array<{ sessionId: string; label: string; description: string; detail: string }> = [];
    stub.answers.push((items: typeof offered) => {
      offered = items;
      return items.find((i) => i.sessionId === first);
    });
    await run("scv.openSession");
    const row = offered.find((i) => i.sessionId === first);
    // Today's server lists no title: the row falls back to the first prompt this window saw.
    assert.equal(row?.label, "shorten the greeting");
    assert.equal(row?.detail, `${workspace} · ${first}`);
    assert.match(row?.description ?? "", /^idle · /);
    const asked = (p: string) => store.state?.transcript.some((e) => e.kind === "turn" && e.prompt === p);
    await until(() => store.sessionId === first && asked("What does this do?") && lastHtml().includes("What does this do?"), "the replayed transcript");
    // The state was rebuilt from the replay alone, so the prompts came with scv/turn/started.
    const prompts = store.state!.transcript.flatMap((e) => (e.kind === "turn" ? [e.prompt] : []));
    assert.deepEqual(prompts.slice(0, 3), ["shorten the greeting", "run echo", "What does this do?"]);
    assert.ok(prompts.every((p) => typeof p === "string" && p.length > 0), JSON.stringify(prompts));
  });

  it("SCV: Attach to Session picks from the server's sessions; Clear Session asks first", async () => {
    let offered: Array<{ sessionId: string }> = [];
    stub.answers.push((items: Array<{ sessionId: string; label: string }>) => {
      offered = items;
      return items.find((i) => i.label === workspace);
    });
    await run("scv.attachSession");
    assert.ok(offered.length >= 1);
    await until(() => /SCV: idle/.test(status()), "attached");

    stub.answers.push("Clear");
    await run("scv.clearSession");
    await until(() => lastHtml().includes("Session cleared."), "the cleared transcript");
    const sessions: SessionInfo[] = await (stub.treeProviders.get("scv.queue") as any).server.store.conn.listSessions();
    assert.ok(sessions.every((s) => s.queued === 0));
  });

  it("SCV: Restart Server starts a new process; the session comes back from disk and goes on", async () => {
    const store = (stub.treeProviders.get("scv.queue") as any).server.store as SessionStore;
    const { pid } = await store.conn.daemonStatus();
    const before = store.sessionId;
    await run("scv.restartServer");
    await until(() => /SCV: idle/.test(status()) && store.sessionId === before, "the re-attach to the stored session");
    // The stored session takes a new turn on the new process.
    fake.script({ text: "back" });
    await run("scv.sendPrompt", "hello again");
    await until(() => /SCV: idle/.test(status()) && lastHtml().includes("back"), "a turn on the new server");
    assert.equal(store.sessionId, before, "the same session goes on");
    assert.notEqual((await store.conn.daemonStatus()).pid, pid, "a new process serves");
  });

  it("a crashed server is restarted and the window re-attaches to the stored session", async () => {
    const store = (stub.treeProviders.get("scv.queue") as any).server.store as SessionStore;
    const { pid } = await store.conn.daemonStatus();
    const before = store.sessionId;
    process.kill(pid, "SIGKILL");
    await until(() => stub.output.some((l) => /restarting \(1\/5\)/.test(l)), "the restart");
    await until(() => /SCV: idle/.test(status()) && store.sessionId === before, "the re-attach after the restart");
    fake.script({ text: "after the crash" });
    await run("scv.sendPrompt", "still there?");
    await until(() => /SCV: idle/.test(status()) && lastHtml().includes("after the crash"), "a turn in the stored session");
    assert.equal(store.sessionId, before, "the same session goes on");
    assert.notEqual((await store.conn.daemonStatus()).pid, pid, "a new process serves");
  });

  it("restarts a crashed server at most MAX_RESTARTS times, then says so", async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { BoundedRestarts, MAX_RESTARTS } = require("../../src/server") as typeof import("../../src/server");
    const h = new BoundedRestarts();
    const actions = Array.from({ length: MAX_RESTARTS + 1 }, () => h.closed() as { action: number; message?: string });
    assert.equal(MAX_RESTARTS, 5);
    assert.deepEqual(actions.map((a) => a.action), [2, 2, 2, 2, 2, 1], "Restart ×5, then DoNotRestart");
    assert.match(actions[MAX_RESTARTS].message ?? "", /will not be restarted/);
  });
});

