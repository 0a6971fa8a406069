// The session store: one connection, the sessions this window follows, and the
// reducer's state for each. It re-syncs by itself when events were lost and turns
// queue conflicts into a fresh queue plus a typed error. No `vscode` here either.
import { describeError, Disposable, ScvConnection, scvErrorCode } from "./connection";
import type {
  ApprovalPolicy,
  ApprovalRequested,
  ApprovalResolveResult,
  ChangedFile,
  Decision,
  ModelListResult,
  PromptContext,
  QueueEntry,
  ServerEvent,
  SessionConfigureResult,
  SessionStartParams,
  Snapshot,
  TurnRevertResult,
  TurnStartResult,
} from "./protocol";
import { reduce } from "./reducer";
import type { Action, SessionState } from "./state";

/** A queue edit lost a race with another edit; the queue has been re-read. */
export class QueueConflictError extends Error {
  constructor(readonly queueId: string) {
    super("The queue changed elsewhere; it has been refreshed. Try again on the current entry.");
    this.name = "QueueConflictError";
  }
}

export class NoSessionError extends Error {
  constructor() {
    super("No SCV session: start one with “SCV: New Session” or attach to one.");
    this.name = "NoSessionError";
  }
}

type Listener<T> = (value: T) => void;

class Emitter<T> {
  private readonly listeners = new Set<Listener<T>>();
  on(l: Listener<T>): Disposable {
    this.listeners.add(l);
    return { dispose: () => this.listeners.delete(l) };
  }
  fire(value: T): void {
    for (const l of [...this.listeners]) l(value);
  }
}

export class SessionStore {
  private readonly states = new Map<string, SessionState>();
  private readonly resyncing = new Set<string>();
  private current: string | undefined;
  private readonly sub: Disposable;
  private readonly changed = new Emitter<SessionState | undefined>();
  private readonly approvalArrived = new Emitter<ApprovalRequested>();
  private readonly failed = new Emitter<string>();

  constructor(readonly conn: ScvConnection) {
    this.sub = conn.onEvent((e) => this.onEvent(e));
  }

  dispose(): void {
    this.sub.dispose();
  }

  /** Fires with the current session's state after every change of it. */
  onDidChange(l: Listener<SessionState | undefined>): Disposable {
    return this.changed.on(l);
  }

  /** Fires when a live approval request for the current session arrives. */
  onApproval(l: Listener<ApprovalRequested>): Disposable {
    return this.approvalArrived.on(l);
  }

  /** Fires with a message when a background re-sync fails. */
  onError(l: Listener<string>): Disposable {
    return this.failed.on(l);
  }

  get sessionId(): string | undefined {
    return this.current;
  }

  get state(): SessionState | undefined {
    return this.current ? this.states.get(this.current) : undefined;
  }

  stateOf(sessionId: string): SessionState | undefined {
    return this.states.get(sessionId);
  }

  private require(): SessionState {
    const s = this.state;
    if (!s) throw new NoSessionError();
    return s;
  }

  dispatch(sessionId: string, action: Action): SessionState {
    const before = this.states.get(sessionId);
    const after = reduce(before, action);
    this.states.set(sessionId, after);
    if (sessionId === this.current) {
      for (const a of after.approvals) {
        if (!before?.approvals.some((b) => b.approvalId === a.approvalId)) this.approvalArrived.fire(a);
      }
      this.changed.fire(after);
    }
    if (after.resync && !this.resyncing.has(sessionId)) void this.resync(sessionId);
    return after;
  }

  private onEvent(event: ServerEvent): void {
    const sessionId = event.params.sessionId;
    if (!this.states.has(sessionId)) return; // a session this window does not follow
    this.dispatch(sessionId, { type: "event", event });
  }

  private async resync(sessionId: string): Promise<void> {
    const s = this.states.get(sessionId);
    if (!s) return;
    this.resyncing.add(sessionId);
    try {
      await this.attach(sessionId, s.resync?.afterSeq ?? s.seq);
    } catch (err) {
      this.failed.fire(`Re-sync of session ${sessionId} failed: ${describeError(err)}`);
    } finally {
      this.resyncing.delete(sessionId);
    }
  }

  /** Starts a session and makes it current. */
  async start(params: SessionStartParams): Promise<SessionState> {
    const snap = await this.conn.startSession(params);
    // The policy asked for is the one in force (a refused one fails the start); show it until a configure says otherwise.
    return this.adopt(snap.approvalPolicy || !params.approvalPolicy ? snap : { ...snap, approvalPolicy: params.approvalPolicy });
  }

  private adopt(snap: Snapshot, afterSeq?: number): SessionState {
    this.current = snap.sessionId;
    return this.dispatch(snap.sessionId, { type: "snapshot", snapshot: snap, afterSeq });
  }

  /**
   * Attaches to a session and makes it current. With `afterSeq` the server replays
   * what came after it; a session known here re-attaches from its last seq.
   */
  async attach(sessionId: string, afterSeq?: number): Promise<SessionState> {
    const known = this.states.get(sessionId);
    const from = afterSeq ?? (known ? known.seq : undefined);
    try {
      const snap = await this.conn.attach(sessionId, from);
      return this.adopt(snap, from);
    } catch (err) {
      if (scvErrorCode(err) === "session_not_found" && known) {
        this.dispatch(sessionId, { type: "lost", reason: "The session no longer exists on the server (it may have restarted)." });
      }
      throw err;
    }
  }

  /**
   * Opens a session with its whole transcript (`replay: "full"`; a stored one is
   * loaded by the server) and makes it current. The state starts afresh: what
   * was applied before is replayed, in order, after the snapshot.
   */
  async open(sessionId: string, title?: string): Promise<SessionState> {
    const snap = await this.conn.attach(sessionId, 0, "full");
    this.states.delete(sessionId);
    this.adopt(snap, 0);
    return title && !this.states.get(sessionId)?.title ? this.dispatch(sessionId, { type: "title", title }) : this.states.get(sessionId)!;
  }

  /** Re-attaches the current session from its last seen event (a reopened view, a restarted server). */
  async refresh(): Promise<SessionState | undefined> {
    const s = this.state;
    if (!s || s.closed) return s;
    return this.attach(s.sessionId, s.seq);
  }

  /** Stops following the current session (it lives on in the server). */
  async detach(): Promise<void> {
    const s = this.require();
    await this.conn.detach(s.sessionId);
  }

  async sendPrompt(prompt: string, context?: PromptContext[]): Promise<TurnStartResult> {
    const s = this.require();
    const result = await this.conn.startTurn(s.sessionId, prompt, context);
    this.dispatch(s.sessionId, { type: "prompt", prompt, result });
    return result;
  }

  /**
   * Sends a prompt into the running turn (steer). When no turn runs, or it ended
   * before the steer arrived (`turn_not_found`), the prompt goes the usual way:
   * it starts a turn or is queued.
   */
  async steer(prompt: string, context?: PromptContext[]): Promise<{ steered: true } | { steered: false; result: TurnStartResult }> {
    const s = this.require();
    if (s.status === "running" && s.turnId && !context?.length) {
      try {
        await this.conn.steer(s.sessionId, s.turnId, prompt);
        return { steered: true };
      } catch (err) {
        if (scvErrorCode(err) !== "turn_not_found") throw err;
      }
    }
    return { steered: false, result: await this.sendPrompt(prompt, context) };
  }

  /** Switches the model and/or approval policy from the next model call on. */
  configure(change: { model?: string; approvalPolicy?: ApprovalPolicy }): Promise<SessionConfigureResult> {
    const s = this.require();
    return this.conn.configure({ sessionId: s.sessionId, ...change });
  }

  listModels(): Promise<ModelListResult> {
    return this.conn.listModels(this.require().sessionId);
  }

  /** One file a turn changed, with its texts before and after the turn; undefined when the turn did not change it. */
  async changedFile(turnId: string, path: string): Promise<ChangedFile | undefined> {
    const r = await this.conn.turnChanges(this.require().sessionId, turnId, path);
    return r.files.find((f) => f.path === path) ?? r.files[0];
  }

  /** Reverts a turn and those after it; the conflicts (files changed since) are shown under the turn. */
  async revert(turnId: string, force = false): Promise<TurnRevertResult> {
    const s = this.require();
    const result = await this.conn.revert(s.sessionId, turnId, force);
    this.dispatch(s.sessionId, { type: "revertConflicts", turnId, conflicts: result.conflicts });
    return result;
  }

  /** Cancels the running turn; false when nothing runs. */
  async cancel(): Promise<boolean> {
    const s = this.require();
    if (s.status !== "running" || !s.turnId) return false;
    await this.conn.cancelTurn(s.sessionId, s.turnId);
    return true;
  }

  /**
   * Answers an approval. False when another window answered first
   * (`approval_not_found`); its `approval/resolved` event updates the state.
   */
  async resolve(approvalId: string, decision: Decision): Promise<boolean> {
    return (await this.resolveWith(approvalId, decision)) !== false;
  }

  /**
   * Approves and has the server write `rule` to the user's config, so such calls
   * run without asking from now on. False as for resolve.
   */
  allowAlways(approvalId: string, rule: string): Promise<ApprovalResolveResult | false> {
    return this.resolveWith(approvalId, "approve", rule);
  }

  private async resolveWith(approvalId: string, decision: Decision, allowRule?: string): Promise<ApprovalResolveResult | false> {
    const s = this.require();
    try {
      return (await this.conn.resolveApproval(s.sessionId, approvalId, decision, allowRule)) ?? {};
    } catch (err) {
      if (scvErrorCode(err) === "approval_not_found") return false;
      throw err;
    }
  }

  async setPaused(paused: boolean): Promise<void> {
    const s = this.require();
    await this.conn.pause(s.sessionId, paused);
  }

  async clear(): Promise<void> {
    const s = this.require();
    await this.conn.clear(s.sessionId);
  }

  async close(): Promise<void> {
    const s = this.require();
    await this.conn.close(s.sessionId);
  }

  /** Re-reads the queue from the server. */
  async reloadQueue(): Promise<void> {
    const s = this.require();
    const queue = await this.conn.listQueue(s.sessionId);
    this.dispatch(s.sessionId, { type: "queue", queue });
  }

  private entry(queueId: string): QueueEntry {
    const e = this.require().queue.entries.find((q) => q.queueId === queueId);
    if (!e) throw new Error(`queue entry ${queueId} is no longer in the queue`);
    return e;
  }

  /** Runs a queue edit; a stale revision re-reads the queue and throws QueueConflictError. */
  private async queueEdit<R>(queueId: string, edit: (sessionId: string, revision: number) => Promise<R>): Promise<R> {
    const s = this.require();
    const e = this.entry(queueId);
    try {
      return await edit(s.sessionId, e.revision);
    } catch (err) {
      if (scvErrorCode(err) === "queue_conflict") {
        await this.reloadQueue();
        throw new QueueConflictError(queueId);
      }
      throw err;
    }
  }

  updateQueued(queueId: string, prompt: string): Promise<QueueEntry> {
    return this.queueEdit(queueId, (sid, rev) => this.conn.updateQueue(sid, queueId, rev, prompt));
  }

  removeQueued(queueId: string): Promise<unknown> {
    return this.queueEdit(queueId, (sid, rev) => this.conn.removeQueue(sid, queueId, rev));
  }

  /** Moves an entry one place up (-1) or down (+1); a move past either end does nothing. */
  async moveQueued(queueId: string, delta: -1 | 1): Promise<boolean> {
    const entries = this.require().queue.entries;
    const i = entries.findIndex((e) => e.queueId === queueId);
    const to = i + delta;
    if (i < 0 || to < 0 || to >= entries.length) return false;
    // "before X" semantics: up goes before the previous entry; down goes before the
    // entry after the next one, or to the end.
    const before = delta < 0 ? entries[to].queueId : entries[to + 1]?.queueId;
    await this.queueEdit(queueId, (sid, rev) => this.conn.moveQueue(sid, queueId, rev, before));
    return true;
  }
}
