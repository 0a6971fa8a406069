// The channel vscode-languageclient writes its JSON-RPC trace to. The client
// traces only while its trace channel's log level is Trace, and then ignores
// `off` (issue 14, bug 4): so this channel reports the log level the
// `scv.trace.server` setting implies — Trace when it is messages or verbose,
// Off when it is off — and writes every trace line to the "SCV Trace" output
// channel, which has no log level to filter it.
import * as vscode from "vscode";
import { TraceSetting, traceSetting } from "./client/traceLevel";

const levelOf = (setting: TraceSetting) => (setting === "off" ? vscode.LogLevel.Off : vscode.LogLevel.Trace);

// A line when tracing starts or stops: an empty channel would not tell
// "tracing, nothing sent yet" (the server starts at the first SCV command, not
// with the window) from "not tracing".
const tracingLine = (setting: TraceSetting) =>
  `scv.trace.server = "${setting}": tracing the JSON-RPC traffic with scv from now on (a server not running yet starts at the first SCV command, traced from its initialize).`;
const STOPPED_LINE = `scv.trace.server = "off": tracing stopped.`;

export class TraceChannel implements vscode.Disposable {
  private readonly sink: vscode.OutputChannel;
  private readonly levelChanged = new vscode.EventEmitter<vscode.LogLevel>();
  private readonly sub: vscode.Disposable;
  private level: vscode.LogLevel;

  constructor() {
    this.sink = vscode.window.createOutputChannel("SCV Trace");
    const setting = this.read();
    this.level = levelOf(setting);
    if (setting !== "off") this.sink.appendLine(tracingLine(setting));
    this.sub = vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration("scv.trace.server")) return;
      const next = this.read();
      if (levelOf(next) === this.level) return;
      this.level = levelOf(next);
      this.sink.appendLine(next === "off" ? STOPPED_LINE : tracingLine(next));
      this.levelChanged.fire(this.level);
    });
  }

  private read(): TraceSetting {
    return traceSetting(vscode.workspace.getConfiguration("scv").get<string>("trace.server", "off"));
  }

  /** What the language client is given as `traceOutputChannel`. */
  readonly channel: vscode.LogOutputChannel = this.facade();

  private facade(): vscode.LogOutputChannel {
    const level = () => this.level;
    const sink = () => this.sink;
    const write = (message: string) => sink().appendLine(message);
    return {
      name: "SCV Trace",
      get logLevel() {
        return level();
      },
      onDidChangeLogLevel: this.levelChanged.event,
      trace: write,
      debug: write,
      info: write,
      warn: write,
      error: (e: string | Error) => write(String(e)),
      append: (v: string) => sink().append(v),
      appendLine: write,
      replace: (v: string) => sink().replace(v),
      clear: () => sink().clear(),
      show: (preserveFocus?: unknown) => sink().show(preserveFocus === true),
      hide: () => sink().hide(),
      dispose: () => undefined, // owned here, not by the client
    };
  }

  dispose(): void {
    this.sub.dispose();
    this.levelChanged.dispose();
    this.sink.dispose();
  }
}
