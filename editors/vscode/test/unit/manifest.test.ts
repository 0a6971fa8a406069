// package.json contributes every command and setting the extension handles, and
// the core stays free of `vscode`.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { APPROVAL_POLICIES } from "../../src/client/protocol";

const root = path.join(__dirname, "..", "..");
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));

/** Command ids registered in src/commands (each command file declares `id: "scv.…"`). */
function registeredCommands(): string[] {
  const dir = path.join(root, "src", "commands");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".ts"))
    .flatMap((f) => [...readFileSync(path.join(dir, f), "utf8").matchAll(/\bid: "(scv\.[\w.]+)"/g)].map((m) => m[1]))
    .sort();
}

describe("package.json", () => {
  const contributed: Array<{ command: string; title: string }> = pkg.contributes.commands;

  it("contributes exactly the commands that are registered, each titled “SCV: …”", () => {
    assert.deepEqual(contributed.map((c) => c.command).sort(), registeredCommands());
    for (const c of contributed) assert.match(c.title, /^SCV: \S/, c.command);
  });

  it("binds keys only to registered commands: focus chat, send selection, cancel, attach", () => {
    const ids = new Set(registeredCommands());
    const bound = (pkg.contributes.keybindings as Array<{ command: string; key: string; mac: string }>).map((k) => {
      assert.ok(ids.has(k.command), k.command);
      assert.ok(k.key && k.mac, `${k.command} has a key on every platform`);
      return k.command;
    });
    assert.deepEqual(bound.sort(), ["scv.attachFile", "scv.cancelTurn", "scv.sendSelection", "scv.showChat"]);
  });

  it("answers edit approvals from the diff editor's title bar", () => {
    const titleMenu = pkg.contributes.menus["editor/title"] as Array<{ command: string; when: string }>;
    assert.deepEqual(titleMenu.map((m) => m.command), ["scv.approval.approve", "scv.approval.approveSession", "scv.approval.deny"]);
    for (const m of titleMenu) assert.equal(m.when, "resourceScheme == scv-proposed");
  });

  it("has every command the issue names", () => {
    const titles = contributed.map((c) => c.title);
    for (const t of [
      "SCV: New Session",
      "SCV: Send Prompt",
      "SCV: Send Selection",
      "SCV: Cancel Turn",
      "SCV: Pause Queue",
      "SCV: Resume Queue",
      "SCV: Clear Session",
      "SCV: Attach to Session",
      "SCV: Open Session…",
      "SCV: Show Output",
    ]) {
      assert.ok(titles.includes(t), t);
    }
  });

  it("contributes the scv.* settings with their values", () => {
    const props = pkg.contributes.configuration.properties;
    assert.equal(props["scv.path"].default, "scv");
    assert.deepEqual(props["scv.daemon"].enum, ["auto", "never", "required"]);
    assert.deepEqual(props["scv.approvalPolicy"].enum, [...APPROVAL_POLICIES]);
    assert.equal(props["scv.approvalPolicy"].default, "on-risk");
    assert.equal(props["scv.model"].type, "string");
    for (const key of Object.keys(props)) assert.match(key, /^scv\./);
  });

  it("lets no workspace choose what runs unasked, which program runs, or how it starts", () => {
    // A repository's .vscode/settings.json holds Workspace and Folder settings;
    // VS Code ignores them for `application` and `machine` settings. Every
    // setting is listed, so a new one has to take a side.
    const scopes = Object.fromEntries(Object.entries(pkg.contributes.configuration.properties).map(([k, v]: [string, any]) => [k, v.scope ?? "window"]));
    assert.deepEqual(scopes, {
      // What may run without asking: the user's own choice (User settings only).
      "scv.approvalPolicy": "application",
      // Which binary runs and its command line (`--daemon`): the machine's (User, or the remote's settings).
      "scv.path": "machine",
      "scv.daemon": "machine",
      // A project may choose its model, as its .scv/config.toml may: the user's provider and key still serve it.
      "scv.model": "window",
      // Writes the traffic to a local output channel only.
      "scv.trace.server": "window",
    });
  });

  it("every menu entry names a contributed command", () => {
    const ids = new Set(contributed.map((c) => c.command));
    for (const [menu, entries] of Object.entries(pkg.contributes.menus as Record<string, Array<{ command: string }>>)) {
      for (const e of entries) assert.ok(ids.has(e.command), `${menu}: ${e.command}`);
    }
  });

  it("has the chat webview and the queue tree in their own container", () => {
    const views = pkg.contributes.views.scv.map((v: { id: string }) => v.id);
    assert.deepEqual(views, ["scv.chat", "scv.queue"]);
    assert.equal(pkg.contributes.viewsContainers.activitybar[0].id, "scv");
  });
});

describe("architecture", () => {
  it("src/client does not import vscode", () => {
    const dir = path.join(root, "src", "client");
    for (const f of readdirSync(dir)) {
      const src = readFileSync(path.join(dir, f), "utf8");
      assert.doesNotMatch(src, /from\s+["']vscode(-languageclient)?[/"']|require\(["']vscode["']\)/, f);
    }
  });
});
