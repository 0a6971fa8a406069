// The part of playwright-core's API the end-to-end test uses. playwright-core
// is installed into the e2e cache (install.sh), not as a dependency of the
// extension, so its types are not in node_modules; these mirror them.

export interface Locator {
  first(): Locator;
  locator(selector: string, options?: { hasText?: string | RegExp }): Locator;
  waitFor(options?: { state?: "attached" | "detached" | "visible" | "hidden"; timeout?: number }): Promise<void>;
  click(options?: { position?: { x: number; y: number }; force?: boolean; timeout?: number }): Promise<void>;
  fill(value: string, options?: { timeout?: number }): Promise<void>;
  press(key: string, options?: { timeout?: number }): Promise<void>;
  innerText(options?: { timeout?: number }): Promise<string>;
  inputValue(options?: { timeout?: number }): Promise<string>;
  allInnerTexts(): Promise<string[]>;
  isVisible(): Promise<boolean>;
  count(): Promise<number>;
  getAttribute(name: string, options?: { timeout?: number }): Promise<string | null>;
}

export interface FrameLocator {
  first(): FrameLocator;
  frameLocator(selector: string): FrameLocator;
  locator(selector: string, options?: { hasText?: string | RegExp }): Locator;
}

export interface Page {
  goto(url: string, options?: { timeout?: number }): Promise<unknown>;
  locator(selector: string, options?: { hasText?: string | RegExp }): Locator;
  frameLocator(selector: string): FrameLocator;
  screenshot(options: { path: string; fullPage?: boolean }): Promise<unknown>;
  keyboard: { press(key: string): Promise<void>; type(text: string): Promise<void> };
  on(event: "console", handler: (msg: { type(): string; text(): string }) => void): void;
}

export interface Browser {
  newPage(options?: { viewport?: { width: number; height: number } }): Promise<Page>;
  close(): Promise<void>;
}

export interface Playwright {
  chromium: { launch(options: { executablePath: string; headless: boolean; args?: string[] }): Promise<Browser> };
}
