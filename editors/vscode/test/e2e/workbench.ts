// Driving VS Code's web workbench with playwright: the command palette, the
// chat webview's text, editor-title actions, and a screenshot per step. Every
// wait is on a condition in the page, bounded.
import path from "node:path";
import type { FrameLocator, Page } from "./playwright";

/** Bound on each wait of the end-to-end test. */
export const STEP_MS = 30_000;
/** How often a condition outside the page (files, processes) is probed. */
const PROBE_MS = 100;

export async function until<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, what: string, ms = STEP_MS): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, PROBE_MS));
  }
}

export class Workbench {
  private shots = 0;

  constructor(
    readonly page: Page,
    private readonly outDir: string,
  ) {}

  /** A numbered screenshot of the whole window, next to the test output. */
  async shot(name: string): Promise<string> {
    const file = path.join(this.outDir, `${String(++this.shots).padStart(2, "0")}-${name}.png`);
    await this.page.screenshot({ path: file });
    return file;
  }

  async ready(): Promise<void> {
    await this.page.locator(".monaco-workbench").waitFor({ timeout: STEP_MS * 2 });
    await this.page.locator(".statusbar").waitFor({ timeout: STEP_MS });
  }

  /** Opens the command palette with `>` and types filter. */
  async palette(filter: string): Promise<void> {
    const input = this.page.locator(".quick-input-widget input");
    // A key press can land while the workbench moves focus (a view opening, a
    // quick pick closing), and a second press closes a palette that was
    // opening: open, wait, type, and start again only when typing failed.
    let tries = 0;
    await until(async () => {
      if (!(await input.isVisible())) {
        await this.page
          .locator(".part.editor")
          .first()
          .click({ position: { x: 40, y: 40 }, timeout: 1000 })
          .catch(() => this.page.keyboard.press("Escape"));
        await this.page.keyboard.press(++tries % 2 ? "F1" : "Control+Shift+P");
        await input.waitFor({ state: "visible", timeout: 3000 }).catch(() => undefined);
      }
      return input.fill(`>${filter}`, { timeout: 2000 }).then(
        () => true,
        () => false,
      );
    }, "the command palette");
  }

  /** The labels of the quick pick's rows. */
  async quickPickLabels(): Promise<string[]> {
    const rows = this.page.locator(".quick-input-list .monaco-list-row .label-name");
    return rows.allInnerTexts();
  }

  /** Runs a command by its palette title. */
  async command(title: string): Promise<void> {
    await this.palette(title);
    const row = this.page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first();
    await row.waitFor({ timeout: STEP_MS });
    await this.page.keyboard.press("Enter");
    // The palette closes, or turns into the command's own input box.
    const input = this.page.locator(".quick-input-widget input");
    await until(
      async () => !(await input.isVisible()) || !(await input.inputValue().catch(() => ">")).startsWith(">"),
      `the palette to run ${title}`,
    );
  }

  /** Answers an input box (showInputBox) with text. */
  async answerInput(text: string): Promise<void> {
    const input = this.page.locator(".quick-input-widget input");
    await input.waitFor({ state: "visible", timeout: STEP_MS });
    await input.fill(text);
    await this.page.keyboard.press("Enter");
  }

  /** The chat webview's document (VS Code nests it two iframes deep). */
  chat(): FrameLocator {
    return this.page.frameLocator("iframe.webview.ready").first().frameLocator("iframe#active-frame");
  }

  async chatText(): Promise<string> {
    return (await this.chat().locator("#chat").innerText({ timeout: STEP_MS }).catch(() => "")) ?? "";
  }

  async waitChat(pred: (text: string) => boolean, what: string): Promise<string> {
    return until(async () => {
      const t = await this.chatText();
      return pred(t) ? t : undefined;
    }, `the chat to show ${what}`);
  }

  /** The status bar item of the extension. */
  statusText(): Promise<string> {
    return this.page.locator(".statusbar-item", { hasText: "SCV" }).first().innerText({ timeout: STEP_MS });
  }

  async waitStatus(pred: (text: string) => boolean, what: string): Promise<string> {
    return until(async () => {
      const t = await this.statusText().catch(() => "");
      return pred(t) ? t : undefined;
    }, `the status bar to say ${what}`);
  }

  /** Clicks an editor-title action of the active editor by its title. */
  async editorAction(title: string): Promise<void> {
    const action = this.page.locator(`.editor-actions .action-label[aria-label^="${title}"]`).first();
    await action.waitFor({ state: "visible", timeout: STEP_MS });
    await action.click();
  }

  /** Waits for a diff editor titled title whose proposed (right) side shows text. */
  async waitDiff(title: string, text: string): Promise<void> {
    await this.page.locator(".tabs-container .tab", { hasText: title }).first().waitFor({ timeout: STEP_MS });
    const modified = this.page.locator(".monaco-diff-editor .editor.modified .view-lines").first();
    await until(async () => (await modified.innerText().catch(() => "")).includes(text), `the diff's proposed side to show ${text}`);
  }

  /** The tab labels of the editor area. */
  tabs(): Promise<string[]> {
    return this.page.locator(".tabs-container .tab .label-name").allInnerTexts();
  }
}
