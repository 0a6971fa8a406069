// A stand-in for the `vscode` module, enough to activate the extension in plain
// node: real implementations of what the extension's glue uses (commands,
// configuration, output channel, status bar, views, messages), and an inert
// catch-all for the rest of the API that vscode-languageclient touches.
import Module from "node:module";
import path from "node:path";
import { effectiveSetting, inspectSetting, SettingsFiles } from "./settingScopes";

type Fn = (...args: any[]) => any;

/** An inert value for any API the tests do not care about: callable, constructible, empty. */
export function inert(name = "vscode"): any {
  const target = function () {} as unknown as Fn;
  return new Proxy(target, {
    get(t, prop) {
      if (prop === "then") return undefined; // not a thenable
      if (prop === Symbol.iterator) return function* () {};
      if (prop === Symbol.toPrimitive) return () => `<${name}>`;
      if (prop === "prototype") return (t as any).prototype;
      if (prop === "length") return 0;
      if (prop === "dispose") return () => undefined;
      if (typeof prop === "symbol") return undefined;
      return inert(`${name}.${prop}`);
    },
    apply: () => inert(`${name}()`),
    construct: () => inert(`new ${name}`),
  });
}

/** Wraps an object so that missing members are inert rather than undefined. */
function withFallback<T extends object>(obj: T, name: string): T {
  return new Proxy(obj, {
    get(t, prop, recv) {
      if (prop in t) return Reflect.get(t, prop, recv);
      if (prop === "then" || typeof prop === "symbol") return undefined;
      return inert(`${name}.${String(prop)}`);
    },
  });
}

class Disposable {
  static from(...ds: Array<{ dispose(): unknown }>): Disposable {
    return new Disposable(() => ds.forEach((d) => d.dispose()));
  }
  constructor(private readonly fn: () => unknown = () => undefined) {}
  dispose(): void {
    this.fn();
  }
}

class EventEmitter<T> {
  private readonly ls = new Set<(v: T) => unknown>();
  readonly event = (l: (v: T) => unknown, thisArg?: unknown, subs?: Disposable[]) => {
    const bound = thisArg ? l.bind(thisArg) : l;
    this.ls.add(bound);
    const d = new Disposable(() => this.ls.delete(bound));
    subs?.push(d);
    return d;
  };
  fire(v: T): void {
    for (const l of [...this.ls]) l(v);
  }
  dispose(): void {
    this.ls.clear();
  }
}

class Uri {
  private constructor(
    readonly scheme: string,
    readonly fsPath: string,
  ) {}
  get path(): string {
    return this.fsPath;
  }
  static file(p: string): Uri {
    return new Uri("file", p);
  }
  static parse(s: string): Uri {
    return s.startsWith("file://") ? new Uri("file", s.slice(7)) : new Uri(s.split(":")[0], s);
  }
  static joinPath(u: Uri, ...parts: string[]): Uri {
    return new Uri(u.scheme, path.join(u.fsPath, ...parts));
  }
  with(): Uri {
    return this;
  }
  toString(): string {
    return this.scheme === "file" ? `file://${this.fsPath}` : this.fsPath;
  }
  toJSON(): object {
    return { scheme: this.scheme, path: this.fsPath };
  }
}

export interface Message {
  level: "info" | "warning" | "error";
  text: string;
  items: string[];
  /** The detail of a modal message. */
  detail?: string;
}

/** What the stub records, and the knobs a test turns. */
export class VscodeStub {
  readonly commands = new Map<string, Fn>();
  readonly executed: Array<{ id: string; args: unknown[] }> = [];
  readonly messages: Message[] = [];
  readonly output: string[] = [];
  /** Lines per output channel, by name. */
  readonly channels = new Map<string, string[]>();
  /** The log level output channels report (LogLevel: Off 0, Trace 1, … Info 3). */
  outputLogLevel = 2;
  /** vscode.env.remoteName. */
  remoteName: string | undefined;
  private readonly configChanged = new EventEmitter<{ affectsConfiguration(section: string): boolean }>();
  readonly context = new Map<string, unknown>();
  /** User settings. */
  readonly settings: Record<string, unknown> = {};
  /** Remote settings, read only while `remoteName` is set. */
  readonly remoteSettings: Record<string, unknown> = {};
  /** The workspace's `.vscode/settings.json`. */
  readonly workspaceSettings: Record<string, unknown> = {};
  readonly webviewProviders = new Map<string, any>();
  readonly treeProviders = new Map<string, any>();
  readonly statusItems: any[] = [];
  readonly posted: any[] = [];
  /** Answers for showInputBox / showQuickPick / show*Message, consumed in order. */
  readonly answers: unknown[] = [];
  workspaceFolders: Array<{ uri: Uri; name: string; index: number }> = [];
  /** The active editor `SCV: Send Selection` reads. */
  activeTextEditor: unknown;
  private readonly activity = new EventEmitter<void>();
  /** Fires on anything a test may wait for: a post to the webview, a message, a status bar change. */
  readonly onActivity = this.activity.event;

  /** Resolves once `probe` holds, re-checked on every activity; bounded by `timeoutMs`. */
  until<T>(probe: () => T | undefined | false, what: string, timeoutMs: number): Promise<T> {
    const first = probe();
    if (first) return Promise.resolve(first);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        sub.dispose();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}\noutput:\n${this.output.join("\n")}`));
      }, timeoutMs);
      const sub = this.onActivity(() => {
        const v = probe();
        if (!v) return;
        clearTimeout(timer);
        sub.dispose();
        resolve(v);
      });
    });
  }

  /** Changes a setting and fires onDidChangeConfiguration, as the settings editor does. */
  setSetting(key: string, value: unknown): void {
    if (value === undefined) delete this.settings[key];
    else this.settings[key] = value;
    this.configChanged.fire({ affectsConfiguration: (section: string) => key === section || key.startsWith(`${section}.`) });
  }

  private files(): SettingsFiles {
    return { user: this.settings, remote: this.remoteSettings, workspace: this.workspaceSettings };
  }

  api(): any {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const stub = this;
    const answer = () => Promise.resolve(stub.answers.shift());
    const say = (level: Message["level"]) => (text: string, ...rest: unknown[]) => {
      const items = rest.filter((r): r is string => typeof r === "string");
      const options = rest.find((r): r is { detail?: string } => typeof r === "object" && r !== null);
      const m = { level, text, items, detail: options?.detail };
      stub.messages.push(m);
      stub.activity.fire();
      return answer();
    };
    const channel = (name: string) => {
      const lines = stub.channels.get(name) ?? [];
      stub.channels.set(name, lines);
      const push = (s: string) => {
        lines.push(s);
        stub.output.push(s);
      };
      return withFallback(
        {
          name,
          append: push,
          appendLine: push,
          trace: (s: string) => push(`[trace] ${s}`),
          debug: (s: string) => push(`[debug] ${s}`),
          info: (s: string) => push(`[info] ${s}`),
          warn: (s: string) => push(`[warn] ${s}`),
          error: (s: unknown) => push(`[error] ${String(s)}`),
          show: () => stub.executed.push({ id: "<output.show>", args: [] }),
          clear: () => undefined,
          hide: () => undefined,
          replace: () => undefined,
          dispose: () => undefined,
          logLevel: stub.outputLogLevel,
          onDidChangeLogLevel: new EventEmitter<number>().event,
        },
        "OutputChannel",
      );
    };
    const api = {
      Disposable,
      EventEmitter,
      Uri,
      ThemeColor: class {
        constructor(readonly id: string) {}
      },
      MarkdownString: class {
        value = "";
        appendText(t: string) {
          this.value += t;
          return this;
        }
        appendMarkdown(t: string) {
          this.value += t;
          return this;
        }
      },
      TreeItem: class {
        constructor(
          readonly label: string,
          readonly collapsibleState?: number,
        ) {}
      },
      TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
      StatusBarAlignment: { Left: 1, Right: 2 },
      LogLevel: { Off: 0, Trace: 1, Debug: 2, Info: 3, Warning: 4, Error: 5 },
      ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
      commands: withFallback(
        {
          registerCommand: (id: string, fn: Fn) => {
            if (stub.commands.has(id)) throw new Error(`command ${id} already registered`);
            stub.commands.set(id, fn);
            return new Disposable(() => stub.commands.delete(id));
          },
          executeCommand: async (id: string, ...args: unknown[]) => {
            stub.executed.push({ id, args });
            if (id === "setContext") {
              stub.context.set(args[0] as string, args[1]);
              return undefined;
            }
            const fn = stub.commands.get(id);
            return fn ? fn(...args) : undefined;
          },
          getCommands: async () => [...stub.commands.keys()],
        },
        "commands",
      ),
      window: withFallback(
        {
          createOutputChannel: channel,
          createStatusBarItem: () => {
            const fields = { text: "", tooltip: "", command: "", name: "", show: () => undefined, hide: () => undefined, dispose: () => undefined };
            const item = new Proxy(withFallback(fields, "StatusBarItem"), {
              set(_t, prop, value) {
                (fields as any)[prop] = value;
                stub.activity.fire();
                return true;
              },
            });
            stub.statusItems.push(item);
            return item;
          },
          registerWebviewViewProvider: (id: string, provider: unknown) => {
            stub.webviewProviders.set(id, provider);
            return new Disposable();
          },
          createTreeView: (id: string, opts: { treeDataProvider: any }) => {
            stub.treeProviders.set(id, opts.treeDataProvider);
            opts.treeDataProvider.onDidChangeTreeData?.(() => stub.activity.fire());
            return withFallback({ dispose: () => undefined }, "TreeView");
          },
          showInformationMessage: say("info"),
          showWarningMessage: say("warning"),
          showErrorMessage: say("error"),
          showInputBox: answer,
          // A queued function answers with a pick from the items it is shown.
          showQuickPick: async (items: unknown) => {
            const a = stub.answers.shift();
            return typeof a === "function" ? a(await items) : a;
          },
          showWorkspaceFolderPick: answer,
          setStatusBarMessage: (text: string) => {
            stub.messages.push({ level: "info", text, items: [] });
            stub.activity.fire();
            return new Disposable();
          },
          get activeTextEditor() {
            return stub.activeTextEditor;
          },
          visibleTextEditors: [],
          onDidChangeVisibleTextEditors: new EventEmitter<unknown>().event,
          onDidChangeActiveTextEditor: new EventEmitter<unknown>().event,
          tabGroups: withFallback({ all: [], onDidChangeTabs: new EventEmitter<unknown>().event }, "tabGroups"),
        },
        "window",
      ),
      workspace: withFallback(
        {
          get workspaceFolders() {
            return stub.workspaceFolders;
          },
          getConfiguration: (section?: string) => {
            const full = (key: string) => (section ? `${section}.${key}` : key);
            return withFallback(
              {
                // Each file holds only the settings its scope allows (settingScopes.ts).
                get: (key: string, def?: unknown) => effectiveSetting(stub.files(), full(key), !!stub.remoteName) ?? def,
                has: (key: string) => effectiveSetting(stub.files(), full(key), !!stub.remoteName) !== undefined,
                update: async () => undefined,
                inspect: (key: string) => inspectSetting(stub.files(), full(key), !!stub.remoteName),
              },
              "WorkspaceConfiguration",
            );
          },
          onDidChangeConfiguration: stub.configChanged.event,
          onDidChangeWorkspaceFolders: new EventEmitter<unknown>().event,
          textDocuments: [],
          notebookDocuments: [],
        },
        "workspace",
      ),
      env: withFallback(
        {
          appName: "Visual Studio Code (stub)",
          language: "en",
          machineId: "stub",
          sessionId: "stub",
          get remoteName() {
            return stub.remoteName;
          },
        },
        "env",
      ),
      version: "1.91.0",
    };
    return withFallback(api, "vscode");
  }

  /** Makes `require("vscode")` answer this stub for the rest of the process. */
  install(): void {
    const api = this.api();
    const mod = Module as unknown as { _load: Fn };
    const load = mod._load;
    mod._load = function (request: string, ...rest: unknown[]) {
      if (request === "vscode") return api;
      return load.call(this, request, ...rest);
    };
  }

  /** Resolves the chat webview as VS Code would; returns the fake view and its webview. */
  resolveChat(): { view: any; webview: any; receive: (msg: unknown) => void; show: (visible: boolean) => void } {
    const provider = this.webviewProviders.get("scv.chat");
    if (!provider) throw new Error("scv.chat is not registered");
    const received = new EventEmitter<unknown>();
    const visibility = new EventEmitter<void>();
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const stub = this;
    const webview = {
      options: {},
      html: "",
      cspSource: "vscode-webview:",
      asWebviewUri: (u: Uri) => u,
      postMessage: async (m: unknown) => {
        stub.posted.push(m);
        stub.activity.fire();
        return true;
      },
      onDidReceiveMessage: received.event,
    };
    const view = {
      webview,
      visible: true,
      onDidChangeVisibility: visibility.event,
      onDidDispose: new EventEmitter<void>().event,
      show: () => undefined,
    };
    provider.resolveWebviewView(view, {}, inert("CancellationToken"));
    return {
      view,
      webview,
      receive: (msg) => received.fire(msg),
      show: (visible) => {
        view.visible = visible;
        visibility.fire();
      },
    };
  }
}
