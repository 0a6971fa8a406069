// The `@` picker in a stand-in VS Code over the real `scv lsp`: `@` in the
// chat's prompt box (the webview's {type: "pickAttachment"}) opens a pick of
// the workspace's files without what .gitignore ignores, and the file picked
// reaches the model with the next prompt.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { FakeOpenAI, startFakeOpenAI } from "../fake-openai";
import { scvBinary, testHome, WAIT_MS } from "../helpers/scv";
import { VscodeStub } from "../helpers/vscode-stub";

const stub = new VscodeStub();
stub.install();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const ext = require("../../src/extension") as typeof import("../../src/extension");
const vscode = stub.api();
const until = <T>(probe: () => T | undefined | false, what: string) => stub.until(probe, what, WAIT_MS);
const status = () => stub.statusItems[0].text as string;

describe("integration: the @ file picker", () => {
  let fake: FakeOpenAI;
  let root: string;
  const subscriptions: Array<{ dispose(): unknown }> = [];

  before(async () => {
    fake = await startFakeOpenAI();
    root = mkdtempSync(path.join(os.tmpdir(), "scv-attach-"));
    const { home, workspace } = testHome(root, fake.baseUrl);
    mkdirSync(path.join(workspace, "src"));
    writeFileSync(path.join(workspace, ".gitignore"), "secret.env\nbuild/\n");
    writeFileSync(path.join(workspace, "secret.env"), "TOKEN=1\n");
    mkdirSync(path.join(workspace, "build"));
    writeFileSync(path.join(workspace, "build", "out.js"), "x\n");
    writeFileSync(path.join(workspace, "src", "notes.md"), "the attached notes\n");
    writeFileSync(path.join(workspace, "README.md"), "readme\n");
    execFileSync("git", ["init", "-q"], { cwd: workspace });
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

  it("lists the workspace's files without the ignored ones, and sends the pick with the next prompt", async () => {
    const chat = stub.resolveChat();
    let shown: string[] = [];
    stub.answers.push((items: Array<{ label: string; description?: string }>) => {
      shown = items.map((i) => (i.description ? `${i.description}/${i.label}` : i.label)).sort();
      return items.find((i) => i.label === "notes.md");
    });
    chat.receive({ type: "pickAttachment" });
    // The pick is a chip of the prompt being written.
    await until(
      () => stub.posted.find((m) => m?.type === "attachments" && m.items.some((i: { title: string }) => /src\/notes\.md$/.test(i.title))),
      "the attachment's chip",
    );
    assert.deepEqual(shown, [".gitignore", "README.md", "src/notes.md"]);

    fake.script({ text: "Read them." });
    chat.receive({ type: "send", prompt: "summarise the notes" });
    await until(() => /SCV: idle/.test(status()) && fake.requests.length === 1, "the turn's end");
    const sent = JSON.stringify(fake.requests[0].messages);
    assert.match(sent, /the attached notes/, "the file's text reached the model");

    // The attachment went with that prompt only.
    fake.script({ text: "Again." });
    chat.receive({ type: "send", prompt: "and now?" });
    await until(() => fake.requests.length === 2 && /SCV: idle/.test(status()), "the second turn's end");
    const last = fake.requests[1].messages.at(-1);
    assert.doesNotMatch(JSON.stringify(last), /the attached notes/);
  });
});
