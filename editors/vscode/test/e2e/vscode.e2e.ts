// The extension in a real VS Code: code-server (VS Code's workbench with a
// remote extension host, as in Remote-SSH, WSL or a container) driven headless
// through Debian's chromium. It installs the built .vsix the way a user does,
// opens a workspace whose scv talks to the fake OpenAI endpoint (offline), and
// goes through what a new user does. Screenshots of every step are written to
// test/e2e/out/ so a failure can be seen. Run by scripts/test after
// `npm run package`; install.sh fills the cache it needs.
import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "./playwright";
import { FakeOpenAI, startFakeOpenAI } from "../fake-openai";
import { scvBinary } from "../helpers/scv";
import {
  CodeServer,
  filesUnder,
  installExtension,
  Layout,
  layout,
  missingPieces,
  playwright,
  runProcesses,
  scvProcesses,
  startCodeServer,
  writeSettings,
} from "./codeServer";
import { STEP_MS, until, Workbench } from "./workbench";

const CHROMIUM = process.env.SCV_E2E_CHROMIUM ?? "/usr/bin/chromium";
const VSIX = process.env.SCV_E2E_VSIX ?? path.resolve(__dirname, "..", "..", "scv-vscode.vsix");
const OUT = path.join(__dirname, "out");
/** Bound on the scv server's exit once VS Code has stopped. */
const EXIT_MS = 15_000;

const missing = missingPieces(CHROMIUM) ?? (existsSync(VSIX) ? undefined : `${VSIX} is missing; run npm run package`);

describe("e2e: the extension in a real VS Code (code-server + chromium)", { skip: missing }, () => {
  let fake: FakeOpenAI;
  let l: Layout;
  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let wb: Workbench;
  let machineSettings: Record<string, unknown>;

  before(async () => {
    rmSync(OUT, { recursive: true, force: true });
    mkdirSync(OUT, { recursive: true });
    fake = await startFakeOpenAI();
    l = layout(mkdtempSync(path.join(os.tmpdir(), "scv-e2e-")));
    writeFileSync(
      path.join(l.scvHome, "config.toml"),
      `[provider]\nkind = "openai"\nbase_url = "${fake.baseUrl}"\napi_key = "test-key"\nmodel = "fake-model"\n`,
    );
    writeFileSync(path.join(l.workspace, "hello.txt"), "hello\n");
    // A hostile repository's .vscode/settings.json: it asks for a policy that runs
    // every tool unasked, its own program as scv, and the shared daemon (defect
    // 8). VS Code must ignore all three: the session starts with the user's
    // policy, in the user's scv, in-process.
    mkdirSync(path.join(l.workspace, ".vscode"));
    writeFileSync(
      path.join(l.workspace, ".vscode", "settings.json"),
      JSON.stringify({ "scv.approvalPolicy": "auto", "scv.path": "/nonexistent/scv-from-the-repository", "scv.daemon": "required" }, null, 2),
    );
    // The user's policy in User settings, where an application-scoped setting is
    // read in this remote-style window; "always" so that it is told apart from the default.
    writeSettings(l, "User", {
      "scv.approvalPolicy": "always",
      "workbench.startupEditor": "none",
      "workbench.tips.enabled": false,
      "security.workspace.trust.enabled": false,
      "extensions.ignoreRecommendations": true,
      "chat.disableAIFeatures": true,
      "workbench.secondarySideBar.defaultVisibility": "hidden",
    });
    // The remote machine's settings: where scv runs, and the trace as the red
    // team set it (defect 23).
    machineSettings = { "scv.path": await scvBinary(), "scv.daemon": "never", "scv.trace.server": "messages" };
    writeSettings(l, "Machine", machineSettings);
    const installed = await installExtension(l, VSIX);
    assert.match(installed, /successfully installed/i, installed);
    server = await startCodeServer(l);
    browser = await playwright().chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    wb = new Workbench(page, OUT);
    await page.goto(server.url);
    await wb.ready();
  });

  // Each step builds on the one before: after a failure, the screen shows why
  // and the later steps are skipped rather than failing for the same reason.
  // A check only reads what the steps before it left: its failure does not make
  // the later steps fail for the same reason, so they still run.
  let failed = false;
  const scenario = (stopsLater: boolean) => (name: string, fn: () => Promise<void>) =>
    it(name, async (t) => {
      if (failed) return t.skip("an earlier step failed");
      try {
        await fn();
      } catch (err) {
        if (stopsLater) failed = true;
        if (browser) await wb.shot(`failed-${name.replace(/\W+/g, "-")}`).catch(() => undefined);
        throw err;
      }
    });
  const step = scenario(true);
  const check = scenario(false);

  after(async () => {
    await browser?.close().catch(() => undefined);
    if (server && server.process.exitCode === null) server.process.kill("SIGKILL");
    // Whatever of this run outlived code-server (its file watcher does).
    for (const pid of l ? runProcesses(l.scvHome) : []) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    await fake?.close();
    // Keep the logs next to the screenshots; the run folder goes.
    for (const log of l ? filesUnder(l.logs, ".log") : []) {
      copyFileSync(log, path.join(OUT, path.relative(l.logs, log).replace(/[\\/]/g, "_")));
    }
    if (l) rmSync(l.root, { recursive: true, force: true });
  });

  step("activates with no error in the logs", async () => {
    await wb.waitStatus((t) => t.includes("SCV"), "SCV");
    const hostLog = await until(() => filesUnder(l.logs, "remoteexthost.log")[0], "the extension host's log");
    const log = await until(() => {
      const text = readFileSync(hostLog, "utf8");
      return /_doActivateExtension scv\.scv-vscode\b/.test(text) && text;
    }, "the extension's activation in the host log");
    const errors = log.split("\n").filter((line) => /\[error\]/i.test(line) && /scv/i.test(line));
    assert.deepEqual(errors, [], "errors of the extension in the host log");
    await wb.shot("activated");
  });

  check("says in “SCV Trace” that it traces before any SCV command has started the server", async () => {
    const log = await until(() => filesUnder(l.logs, "SCV Trace.log")[0], "the SCV Trace channel's log file");
    await until(() => /^scv\.trace\.server = "messages": tracing/.test(readFileSync(log, "utf8")), `the tracing line in ${log}`);
    assert.equal(scvProcesses(l.scvHome).length, 0, "no server runs yet");
  });

  step("lists its commands in the palette", async () => {
    await wb.palette("SCV:");
    const labels = await until(async () => {
      const ls = await wb.quickPickLabels();
      return ls.some((s) => s.includes("SCV: New Session")) && ls;
    }, "SCV commands in the palette");
    for (const title of ["SCV: New Session", "SCV: Send Prompt", "SCV: Cancel Turn", "SCV: Show Chat"]) {
      assert.ok(labels.some((s) => s.includes(title)), `${title} in ${labels.join(", ")}`);
    }
    await wb.shot("palette");
    await page.keyboard.press("Escape");
  });

  step("streams an answer into the chat webview", async () => {
    fake.script({ text: ["Hello from ", "the fake model, streamed."], hold: true });
    await wb.command("SCV: Show Chat");
    const prompt = wb.chat().locator("#prompt");
    await prompt.waitFor({ timeout: STEP_MS });
    await prompt.fill("Say hello");
    await prompt.press("Enter");
    // The first piece arrives while the model is "still talking"…
    const partial = await wb.waitChat((t) => t.includes("Hello from"), "the first piece");
    assert.ok(!partial.includes("streamed."), "the rest arrives only after release");
    await wb.shot("streaming");
    fake.release();
    // …and the answer grows to its end.
    await wb.waitChat((t) => t.includes("the fake model, streamed."), "the whole answer");
    await wb.waitStatus((t) => t.includes("idle"), "idle");
    await wb.shot("streamed");
  });

  check("starts the session with the user's approval policy, scv and daemon mode, not those .vscode/settings.json asks for", async () => {
    const commandLines = scvProcesses(l.scvHome).map((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean));
    assert.deepEqual(commandLines, [[await scvBinary(), "lsp", "--daemon=never"]]);
    const policy = wb.chat().locator('button[data-action="pick-policy"]');
    // The header shows the policy the server answered scv/session/start with.
    const label = await until(async () => (await policy.getAttribute("aria-label", { timeout: STEP_MS }).catch(() => null)) ?? false, "the policy picker");
    await wb.shot("policy");
    assert.equal(label, "Approval policy always: switch");
  });

  check("writes the JSON-RPC trace, from initialize on, into the “SCV Trace” output channel's log", async () => {
    // VS Code writes each output channel to a log file named after it.
    const log = await until(() => filesUnder(l.logs, "SCV Trace.log")[0], "the SCV Trace channel's log file");
    const text = await until(() => {
      const t = readFileSync(log, "utf8");
      return /Sending request 'initialize/.test(t) && t;
    }, `initialize in ${log}`).catch((err) => {
      throw new Error(`${err.message}; it holds:\n${readFileSync(log, "utf8").slice(0, 2000)}`);
    });
    assert.match(text, /Received response 'initialize/);
    assert.match(text, /Sending request 'scv\/session\/start/);
    assert.doesNotMatch(text, /^Params:/m, "messages traces no params");
  });

  step("attaches a workspace file with the @ picker to the next prompt", async () => {
    writeFileSync(path.join(l.workspace, "notes.md"), "the notes say forty-two\n");
    await wb.command("SCV: Attach File or Selection…");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ state: "visible", timeout: STEP_MS });
    await input.fill("notes");
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "notes.md" }).first().waitFor({ timeout: STEP_MS });
    await wb.shot("attach-picker");
    await page.keyboard.press("Enter");
    fake.script({ text: "The notes say 42." });
    const requests = fake.requests.length;
    const prompt = wb.chat().locator("#prompt");
    await prompt.fill("What do the notes say?");
    await prompt.press("Enter");
    await wb.waitChat((t) => t.includes("The notes say 42."), "the answer about the notes");
    assert.equal(fake.requests.length, requests + 1);
    assert.match(JSON.stringify(fake.requests.at(-1).messages), /the notes say forty-two/, "the attached file reached the model");
  });

  step("approves one edit and denies another in VS Code's diff editor; the files on disk follow", async () => {
    fake.script(
      { toolCalls: [{ id: "call_w", name: "write_file", arguments: { path: "approved.txt", content: "approved\n" } }] },
      { text: "Wrote approved.txt." },
    );
    await wb.command("SCV: Send Prompt");
    await wb.answerInput("Create approved.txt");
    // From the approval card in the chat…
    const openDiff = wb.chat().locator('button[data-action="review-edit"]').first();
    await openDiff.waitFor({ timeout: STEP_MS });
    await wb.shot("approval-card");
    await openDiff.click();
    await wb.waitDiff("approved.txt: new file ↔ proposed", "approved");
    await wb.shot("approval-diff-write");
    await wb.editorAction("SCV: Approve Edit");
    await until(() => existsSync(path.join(l.workspace, "approved.txt")), "approved.txt on disk");
    assert.equal(readFileSync(path.join(l.workspace, "approved.txt"), "utf8"), "approved\n");
    await wb.waitChat((t) => t.includes("Wrote approved.txt."), "the answer after the approved write");
    await until(async () => !(await wb.tabs()).some((t) => t.includes("approved.txt")), "the answered diff to close");

    fake.script(
      { toolCalls: [{ id: "call_e", name: "edit_file", arguments: { path: "hello.txt", old: "hello", new: "HELLO" } }] },
      { text: "Left hello.txt alone." },
    );
    await wb.command("SCV: Send Prompt");
    await wb.answerInput("Shout in hello.txt");
    await wb.waitStatus((t) => t.includes("waiting for approval"), "waiting for approval");
    // …and from the palette.
    await wb.command("SCV: Review Edit in Diff Editor");
    await wb.waitDiff("hello.txt: current ↔ proposed", "HELLO");
    await wb.shot("approval-diff-edit");
    await wb.editorAction("SCV: Deny Edit");
    await wb.waitChat((t) => t.includes("Left hello.txt alone."), "the answer after the denied edit");
    assert.equal(readFileSync(path.join(l.workspace, "hello.txt"), "utf8"), "hello\n", "a denied edit leaves the file");
    await wb.shot("approval-denied");
  });

  step("shows queued prompts in the queue view, and cancels the running turn", async () => {
    fake.script({ text: ["Working on it"], hold: true }, { text: "First queued done." }, { text: "Second queued done." });
    await wb.command("SCV: Send Prompt");
    await wb.answerInput("A long task");
    await wb.waitChat((t) => t.includes("Working on it"), "the held turn");
    // Enter in the chat's prompt box queues while a turn runs.
    const prompt = wb.chat().locator("#prompt");
    for (const p of ["queued number one", "queued number two"]) {
      await prompt.fill(p);
      await prompt.press("Enter");
    }
    await wb.waitStatus((t) => t.includes("2 queued"), "2 queued");
    await wb.command("SCV: Focus on Queue View");
    const queue = page.locator('.pane-body [role="tree"]', { hasText: "queued number one" });
    await queue.waitFor({ timeout: STEP_MS });
    assert.match(await queue.innerText(), /queued number one[\s\S]*queued number two/);
    await wb.shot("queue");

    await wb.command("SCV: Cancel Turn");
    await fake.waitForAborted(1, STEP_MS);
    // The queue then runs in order.
    await wb.waitChat((t) => t.includes("Second queued done."), "the queued prompts' answers");
    await wb.waitStatus((t) => t.includes("idle") && !t.includes("queued"), "idle with an empty queue");
    await wb.shot("cancelled");
  });

  // Last but one: the restart ends the in-process session.
  step("applies each change of scv.trace.server in the Machine settings at once, and traces a restarted server from initialize on", async () => {
    const log = filesUnder(l.logs, "SCV Trace.log")[0];
    /** What the trace gained while a command ran (a request: the queue's reload). */
    const tracedBy = async (title: string) => {
      const before = readFileSync(log, "utf8").length;
      await wb.command(title);
      return readFileSync(log, "utf8").slice(before);
    };
    const refresh = () => tracedBy("SCV: Refresh Queue");
    const switchTo = (trace: string) => writeSettings(l, "Machine", { ...machineSettings, "scv.trace.server": trace });
    // Each wait ends once VS Code has read the changed file: a request shows it.
    switchTo("verbose");
    await until(async () => /^Params:/m.test(await refresh()), "a request traced with its params (verbose)");
    switchTo("off");
    await until(async () => !/Sending request/.test(await refresh()), "a request not traced (off)");
    switchTo("messages");
    await until(async () => /Sending request/.test(await refresh()), "a request traced again (messages)");
    const before = readFileSync(log, "utf8").length;
    await wb.command("SCV: Restart Server");
    const restarted = await until(() => {
      const t = readFileSync(log, "utf8").slice(before);
      return /Received response 'initialize/.test(t) && t;
    }, "the restarted server's initialize in the trace");
    assert.doesNotMatch(restarted, /^Params:/m, "messages traces no params");
  });

  step("leaves no scv process when VS Code stops", async () => {
    assert.ok(scvProcesses(l.scvHome).length > 0, "the window's scv server runs before the stop");
    await browser!.close();
    browser = undefined;
    server!.process.kill("SIGTERM");
    await server!.exited;
    await until(() => scvProcesses(l.scvHome).length === 0, "every scv process to exit", EXIT_MS);
  });
});
