// Typed calls of the scv protocol over any JSON-RPC peer that looks like a
// vscode-jsonrpc MessageConnection (the tests use one directly; the extension
// passes its LanguageClient, which has the same two methods).
import {
  ALL_NOTIFICATIONS,
  ApprovalResolveResult,
  ModelListResult,
  SessionConfigureParams,
  SessionConfigureResult,
  TurnChangesResult,
  TurnRevertResult,
  APPLICATION_ERROR,
  Decision,
  DaemonStatus,
  ErrorCode,
  Methods,
  PromptContext,
  PROTOCOL_VERSION,
  QueueEntry,
  QueueMoveResult,
  QueueRemoveResult,
  QueueState,
  ReplayMode,
  ScvCapabilities,
  ServerEvent,
  SessionInfo,
  SessionListParams,
  SessionListResult,
  SessionStartParams,
  Snapshot,
  TurnStartResult,
} from "./protocol";

export interface Disposable {
  dispose(): void;
}

/** The part of a JSON-RPC connection the core needs. */
export interface RpcPeer {
  sendRequest<R>(method: string, params?: unknown): Promise<R>;
  onNotification(method: string, handler: (params: any) => void): Disposable;
}

/** A JSON-RPC error as vscode-jsonrpc surfaces it (ResponseError). */
export interface RpcErrorLike {
  code: number;
  message: string;
  data?: unknown;
}

/** The application error code (`data.code`) of a -32000 error, if it is one. */
export function scvErrorCode(err: unknown): ErrorCode | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  const e = err as Partial<RpcErrorLike>;
  if (e.code !== APPLICATION_ERROR) return undefined;
  const data = e.data as { code?: unknown } | undefined;
  return typeof data?.code === "string" ? (data.code as ErrorCode) : undefined;
}

/** A short, human message for an error from a request. */
export function describeError(err: unknown): string {
  if (typeof err === "object" && err !== null && "message" in err) {
    const code = scvErrorCode(err);
    const message = String((err as { message: unknown }).message);
    return code ? `${message} (${code})` : message;
  }
  return String(err);
}

export interface InitializeOptions {
  processId?: number | null;
  rootUri?: string | null;
  clientName?: string;
}

export interface InitializeOutcome {
  serverInfo?: { name: string; version?: string };
  scv?: ScvCapabilities;
}

/** The `initializationOptions` a client sends so a server of another major version refuses it. */
export function initializationOptions(): { scv: { protocolVersion: number } } {
  return { scv: { protocolVersion: PROTOCOL_VERSION } };
}

/**
 * Runs the LSP handshake on a raw connection (the LanguageClient does this by itself).
 * `notify` sends the `initialized` notification.
 */
export async function initialize(
  rpc: RpcPeer,
  notify: (method: string, params: unknown) => unknown,
  opts: InitializeOptions = {},
): Promise<InitializeOutcome> {
  const result = await rpc.sendRequest<{
    serverInfo?: { name: string; version?: string };
    capabilities?: { experimental?: { scv?: ScvCapabilities } };
  }>("initialize", {
    processId: opts.processId ?? null,
    clientInfo: { name: opts.clientName ?? "scv-vscode" },
    rootUri: opts.rootUri ?? null,
    capabilities: {},
    initializationOptions: initializationOptions(),
  });
  await notify("initialized", {});
  return { serverInfo: result?.serverInfo, scv: result?.capabilities?.experimental?.scv };
}

/** Typed scv requests and a single stream of scv notifications. */
export class ScvConnection {
  private readonly listeners = new Set<(event: ServerEvent) => void>();
  private subscribed = false;

  constructor(private readonly rpc: RpcPeer) {}

  /**
   * Subscribes to every scv notification; handlers see them in wire order.
   * vscode-jsonrpc keeps one handler per method (a second registration replaces
   * the first), so this connection registers once and fans out.
   */
  onEvent(handler: (event: ServerEvent) => void): Disposable {
    if (!this.subscribed) {
      this.subscribed = true;
      for (const method of ALL_NOTIFICATIONS) {
        this.rpc.onNotification(method, (params: any) => {
          const event = { method, params } as ServerEvent;
          for (const l of [...this.listeners]) l(event);
        });
      }
    }
    this.listeners.add(handler);
    return { dispose: () => this.listeners.delete(handler) };
  }

  private call<R>(method: string, params?: object): Promise<R> {
    return params === undefined ? this.rpc.sendRequest<R>(method) : this.rpc.sendRequest<R>(method, params);
  }

  startSession(params: SessionStartParams): Promise<Snapshot> {
    return this.call(Methods.sessionStart, dropUndefined(params));
  }

  /**
   * `replay: "full"` asks for the whole transcript; pass `afterSeq: 0` with it
   * so a server that predates it still replays what its ring holds.
   */
  attach(sessionId: string, afterSeq?: number, replay?: ReplayMode): Promise<Snapshot> {
    return this.call(Methods.sessionAttach, dropUndefined({ sessionId, afterSeq, replay }));
  }

  detach(sessionId: string): Promise<object> {
    return this.call(Methods.sessionDetach, { sessionId });
  }

  async listSessions(): Promise<SessionInfo[]> {
    return (await this.listSessionPage()).sessions;
  }

  /** One page of sessions, newest first; `nextCursor` is absent on the last page. */
  async listSessionPage(params?: SessionListParams): Promise<SessionListResult> {
    const p = params ? dropUndefined(params) : undefined;
    const result = await this.call<Partial<SessionListResult> | null>(Methods.sessionList, p && Object.keys(p).length ? p : undefined);
    return { sessions: result?.sessions ?? [], nextCursor: result?.nextCursor || undefined };
  }

  rename(sessionId: string, title: string): Promise<object> {
    return this.call(Methods.sessionRename, { sessionId, title });
  }

  deleteSession(sessionId: string): Promise<object> {
    return this.call(Methods.sessionDelete, { sessionId });
  }

  /** A new stored session with the history up to the end of `turnId` (default: the last completed turn). */
  fork(sessionId: string, turnId?: string): Promise<{ sessionId: string }> {
    return this.call(Methods.sessionFork, dropUndefined({ sessionId, turnId }));
  }

  close(sessionId: string): Promise<object> {
    return this.call(Methods.sessionClose, { sessionId });
  }

  clear(sessionId: string): Promise<object> {
    return this.call(Methods.sessionClear, { sessionId });
  }

  pause(sessionId: string, paused: boolean): Promise<{ paused: boolean }> {
    return this.call(Methods.sessionPause, { sessionId, paused });
  }

  startTurn(sessionId: string, prompt: string, context?: PromptContext[]): Promise<TurnStartResult> {
    return this.call(Methods.turnStart, dropUndefined({ sessionId, prompt, context }));
  }

  cancelTurn(sessionId: string, turnId: string): Promise<object> {
    return this.call(Methods.turnCancel, { sessionId, turnId });
  }

  listQueue(sessionId: string): Promise<QueueState> {
    return this.call(Methods.queueList, { sessionId });
  }

  async updateQueue(sessionId: string, queueId: string, revision: number, prompt: string): Promise<QueueEntry> {
    const result = await this.call<{ entry: QueueEntry }>(Methods.queueUpdate, { sessionId, queueId, revision, prompt });
    return result.entry;
  }

  moveQueue(sessionId: string, queueId: string, revision: number, beforeQueueId?: string): Promise<QueueMoveResult> {
    return this.call(Methods.queueMove, dropUndefined({ sessionId, queueId, revision, beforeQueueId }));
  }

  removeQueue(sessionId: string, queueId: string, revision: number): Promise<QueueRemoveResult> {
    return this.call(Methods.queueRemove, { sessionId, queueId, revision });
  }

  /** `allowRule` (with `approve` only) also writes the rule to the user's config. */
  resolveApproval(sessionId: string, approvalId: string, decision: Decision, allowRule?: string): Promise<ApprovalResolveResult> {
    return this.call(Methods.approvalResolve, dropUndefined({ sessionId, approvalId, decision, allowRule }));
  }

  /** Adds a message to the running turn; `turn_not_found` once it has ended. */
  steer(sessionId: string, turnId: string, prompt: string): Promise<object> {
    return this.call(Methods.turnSteer, { sessionId, turnId, prompt });
  }

  configure(params: SessionConfigureParams): Promise<SessionConfigureResult> {
    return this.call(Methods.sessionConfigure, dropUndefined(params));
  }

  async listModels(sessionId: string): Promise<ModelListResult> {
    const r = await this.call<Partial<ModelListResult> | null>(Methods.modelList, { sessionId });
    return r?.error ? { models: r?.models ?? [], error: r.error } : { models: r?.models ?? [] };
  }

  /** The files a turn changed; with `path`, that file only, with its whole texts before and after. */
  async turnChanges(sessionId: string, turnId: string, path?: string): Promise<TurnChangesResult> {
    const r = await this.call<Partial<TurnChangesResult> | null>(Methods.turnChanges, dropUndefined({ sessionId, turnId, path }));
    return { files: r?.files ?? [] };
  }

  async revert(sessionId: string, turnId: string, force?: boolean): Promise<TurnRevertResult> {
    const r = await this.call<Partial<TurnRevertResult> | null>(Methods.turnRevert, dropUndefined({ sessionId, turnId, force: force || undefined }));
    return { reverted: r?.reverted ?? [], conflicts: r?.conflicts ?? [] };
  }

  daemonStatus(): Promise<DaemonStatus> {
    return this.call(Methods.daemonStatus);
  }
}

/** Optional params travel absent, never as null or undefined. */
function dropUndefined<T extends object>(obj: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (v !== undefined) out[k] = v;
  return out as T;
}
