// Starts `scv lsp` with vscode-languageclient, restarts it a bounded number of
// times when it crashes, and keeps one SessionStore across restarts.
import * as vscode from "vscode";
import {
  CloseAction,
  CloseHandlerResult,
  ErrorAction,
  ErrorHandler,
  ErrorHandlerResult,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
} from "vscode-languageclient/node";
import { describeError, Disposable, initializationOptions, RpcPeer, ScvConnection } from "./client/connection";
import { serverLaunch } from "./client/launch";
import { machineSettingsFile } from "./client/settingSource";
import { SessionStore } from "./client/store";
import { describePathSetting, readSettings } from "./settings";
import { TraceChannel } from "./trace";

/** Crashes after which the server is left stopped until the user restarts it. */
export const MAX_RESTARTS = 5;
/** How long a stop waits for `shutdown` before the process is killed. */
export const STOP_TIMEOUT_MS = 3000;
/** Connection errors tolerated before the client shuts the connection down. */
const MAX_CONNECTION_ERRORS = 3;

export class BoundedRestarts implements ErrorHandler {
  private restarts = 0;

  error(_error: Error, _message: unknown, count: number | undefined): ErrorHandlerResult {
    return { action: (count ?? 0) <= MAX_CONNECTION_ERRORS ? ErrorAction.Continue : ErrorAction.Shutdown };
  }

  closed(): CloseHandlerResult {
    this.restarts++;
    if (this.restarts <= MAX_RESTARTS) {
      return { action: CloseAction.Restart, message: `The SCV server stopped; restarting (${this.restarts}/${MAX_RESTARTS}).`, handled: true };
    }
    return {
      action: CloseAction.DoNotRestart,
      message: `The SCV server stopped ${this.restarts} times and will not be restarted. See “SCV: Show Output”, then run “SCV: Restart Server”.`,
    };
  }
}

/**
 * An RpcPeer over whichever LanguageClient is current, so the store and its
 * notification handlers outlive a restart by the user.
 */
class ClientPeer implements RpcPeer {
  client: LanguageClient | undefined;
  private readonly handlers: Array<{ method: string; handler: (params: any) => void }> = [];
  private bound: Disposable[] = [];

  sendRequest<R>(method: string, params?: unknown): Promise<R> {
    if (!this.client?.isRunning()) return Promise.reject(new Error("The SCV server is not running."));
    return params === undefined ? this.client.sendRequest<R>(method) : this.client.sendRequest<R>(method, params);
  }

  onNotification(method: string, handler: (params: any) => void): Disposable {
    const entry = { method, handler };
    this.handlers.push(entry);
    const sub = this.client?.onNotification(method, handler);
    if (sub) this.bound.push(sub);
    return {
      dispose: () => {
        const i = this.handlers.indexOf(entry);
        if (i >= 0) this.handlers.splice(i, 1);
        sub?.dispose();
      },
    };
  }

  bind(client: LanguageClient | undefined): void {
    this.bound.forEach((d) => d.dispose());
    this.bound = [];
    this.client = client;
    if (client) for (const h of this.handlers) this.bound.push(client.onNotification(h.method, h.handler));
  }
}

export class ScvServer implements vscode.Disposable {
  private readonly peer = new ClientPeer();
  readonly store = new SessionStore(new ScvConnection(this.peer));
  private starting: Promise<SessionStore> | undefined;

  /** Where `scv.trace.server` sends the JSON-RPC trace, whatever the output channel's log level. */
  readonly trace = new TraceChannel();

  constructor(readonly output: vscode.LogOutputChannel) {}

  get running(): boolean {
    return this.peer.client?.isRunning() ?? false;
  }

  /** The store, starting the server first when it does not run. */
  ensure(): Promise<SessionStore> {
    if (this.running) return Promise.resolve(this.store);
    this.starting ??= this.start().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async start(): Promise<SessionStore> {
    await this.stop();
    const settings = readSettings();
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    // No `transport`: with TransportKind.stdio the client would append `--stdio`,
    // which scv lsp refuses; without it the process is spawned on stdio all the same.
    const launch = serverLaunch(settings);
    const serverOptions: ServerOptions = { command: launch.command, args: launch.args, options: { cwd: folder } };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [],
      outputChannel: this.output,
      traceOutputChannel: this.trace.channel,
      initializationOptions: initializationOptions(),
      errorHandler: new BoundedRestarts(),
      initializationFailedHandler: (err) => {
        this.output.error(`initialize failed: ${describeError(err)}`);
        return false;
      },
    };
    // The id "scv" makes the client read `scv.trace.server`; the trace channel's
    // log level follows that setting (see TraceChannel).
    const client = new LanguageClient("scv", "SCV", serverOptions, clientOptions);
    this.peer.bind(client);
    try {
      await client.start();
    } catch (err) {
      this.peer.bind(undefined);
      const message = `Could not start “${settings.path} lsp”: ${describeError(err)}. Settings read: ${describePathSetting()}. Set “scv.path” in your ${machineSettingsFile(vscode.env.remoteName)} to the scv executable on ${vscode.env.remoteName ? `the remote machine (${vscode.env.remoteName})` : "this machine"}.`;
      this.output.error(message);
      throw new Error(message);
    }
    client.onDidChangeState((e) => {
      // After a crash the client restarts the process by itself: the session is still
      // in a daemon, gone with an in-process server; re-attaching tells which.
      if (e.oldState === State.Starting && e.newState === State.Running) this.reattach();
    });
    this.reattach();
    return this.store;
  }

  private reattach(): void {
    if (!this.store.sessionId) return;
    this.store.refresh().catch((err) => this.output.warn(`re-attach: ${describeError(err)}`));
  }

  async restart(): Promise<SessionStore> {
    await this.stop();
    return this.ensure();
  }

  async stop(): Promise<void> {
    const client = this.peer.client;
    this.peer.bind(undefined);
    if (!client) return;
    try {
      await client.stop(STOP_TIMEOUT_MS);
    } catch (err) {
      this.output.warn(`stopping the server: ${describeError(err)}`);
    }
  }

  dispose(): void {
    void this.stop();
    this.store.dispose();
    this.trace.dispose();
  }
}
