// The esbuild bundle that ships in the .vsix loads in node and activates: every
// contributed command is registered (no server is started by activation).
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import * as esbuild from "esbuild";
import { VscodeStub } from "../helpers/vscode-stub";

const root = path.join(__dirname, "..", "..");
const out = mkdtempSync(path.join(os.tmpdir(), "scv-bundle-"));

describe("extension bundle", () => {
  after(() => rmSync(out, { recursive: true, force: true }));

  it("builds minified, loads with only `vscode` external, and activates", async () => {
    const file = path.join(out, "extension.js");
    await esbuild.build({
      entryPoints: [path.join(root, "src", "extension.ts")],
      outfile: file,
      bundle: true,
      minify: true,
      platform: "node",
      format: "cjs",
      target: "node20",
      external: ["vscode"],
      logLevel: "silent",
    });
    const stub = new VscodeStub();
    stub.install();
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const ext = require(file);
    const subscriptions: Array<{ dispose(): unknown }> = [];
    ext.activate({ subscriptions, extensionUri: stub.api().Uri.file(root) });
    const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
    assert.deepEqual([...stub.commands.keys()].sort(), pkg.contributes.commands.map((c: { command: string }) => c.command).sort());
    assert.equal(stub.output.length, 0, "activation alone starts no server");
    await ext.deactivate();
    subscriptions.forEach((s) => s.dispose());
  });
});
