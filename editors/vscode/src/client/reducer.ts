// A pure reducer: (state, action) → new state. No I/O, no clocks, no mutation of
// its input, so recorded notification sequences replay to the same state.
import type { ContextRef, ServerEvent, Snapshot } from "./protocol";
import { cloneQueue, insertAt, rememberPrompts, without } from "./queueState";
import { restoredText } from "./restored";
import { reduceTurnEvent, setRevertConflicts, TURN_EVENTS } from "./reducerTurn";
import type { Action, SessionState, TextBlock, TranscriptEntry, TurnEntry } from "./state";
import { attachApproval, endTurn, ensureTurn, findTurn, mapTools, notice, updateTurn, upsertTool, withTurnEndNotice } from "./turns";

/** Builds the state of a session first seen through a snapshot. */
export function initialState(snapshot: Snapshot, afterSeq?: number): SessionState {
  return reduce(undefined, { type: "snapshot", snapshot, afterSeq });
}

export function reduce(state: SessionState | undefined, action: Action): SessionState {
  if (action.type === "snapshot") return applySnapshot(state, action.snapshot, action.afterSeq);
  if (!state) throw new Error(`reduce: action ${action.type} before any snapshot`);
  const next = applyAction(state, action);
  return settle(next);
}

/** Reduces a whole recorded sequence; handy for tests and replays. */
export function reduceAll(state: SessionState | undefined, actions: Iterable<Action>): SessionState {
  let s = state;
  for (const a of actions) s = reduce(s, a);
  if (!s) throw new Error("reduceAll: no actions");
  return s;
}

function applyAction(state: SessionState, action: Exclude<Action, { type: "snapshot" }>): SessionState {
  switch (action.type) {
    case "event":
      return applyEvent(state, action.event);
    case "prompt": {
      const r = action.result;
      if (r.status === "started") {
        const has = findTurn(state, r.turnId);
        if (has) return updateTurn(state, r.turnId, (t) => ({ ...t, prompt: t.prompt ?? action.prompt }));
        return { ...state, turnPrompts: { ...state.turnPrompts, [r.turnId]: action.prompt } };
      }
      return { ...state, queuedPrompts: { ...state.queuedPrompts, [r.entry.queueId]: action.prompt } };
    }
    case "queue":
      return { ...state, queue: cloneQueue(action.queue), queuedPrompts: rememberPrompts(state.queuedPrompts, action.queue.entries) };
    case "notice":
      return notice(state, action.level, action.text);
    case "title":
      return { ...state, title: action.title };
    case "lost":
      return {
        ...notice(state, "error", action.reason),
        closed: true,
        status: "idle",
        turnId: undefined,
        approvals: [],
        resync: undefined,
      };
    case "revertConflicts":
      return setRevertConflicts(state, action.turnId, action.conflicts);
  }
}

function applySnapshot(state: SessionState | undefined, snap: Snapshot, afterSeq?: number): SessionState {
  const same = state !== undefined && state.sessionId === snap.sessionId;
  const base: SessionState = same
    ? state
    : {
        sessionId: snap.sessionId,
        cwd: snap.cwd,
        model: snap.model,
        status: "idle",
        seq: 0,
        syncSeq: 0,
        queue: { entries: [], paused: false },
        approvals: [],
        transcript: [],
        closed: false,
        queuedPrompts: {},
        turnPrompts: {},
      };
  let next: SessionState = {
    ...base,
    cwd: snap.cwd,
    model: snap.model,
    title: snap.title ?? base.title,
    status: snap.state,
    turnId: snap.state === "running" ? snap.turnId : undefined,
    // Without afterSeq nothing is replayed: the snapshot is where the stream resumes.
    // With it, never rewind below what was applied meanwhile (live events can arrive
    // between the attach request and its reply); replays of those are dropped as repeats.
    seq: afterSeq === undefined ? snap.seq : Math.max(base.seq, afterSeq),
    syncSeq: snap.seq,
    queue: cloneQueue(snap.queue),
    approvals: snap.pendingApprovals.map((a) => ({ ...a })),
    contextMaxTokens: snap.contextMaxTokens,
    limits: snap.limits,
    usage: snap.usage ? usageOf(snap.usage) : base.usage,
    approvalPolicy: snap.approvalPolicy ?? base.approvalPolicy,
    closed: false,
    resync: undefined,
    queuedPrompts: rememberPrompts(base.queuedPrompts, snap.queue.entries),
  };
  if (same && afterSeq === undefined && snap.seq > state.seq) {
    next = notice(next, "warning", `Re-synced without replay: ${snap.seq - state.seq} events were skipped.`);
  }
  if (afterSeq === undefined) {
    // Nothing will be replayed: give the running turn and its pending approvals their
    // cards now. With a replay they arrive in order with the events.
    if (snap.state === "running" && snap.turnId) next = ensureTurn(next, snap.turnId);
    for (const a of next.approvals) next = attachApproval(next, a);
  }
  const plan = snap.plan;
  if (plan && findTurn(next, plan.turnId)) next = updateTurn(next, plan.turnId, (t) => ({ ...t, plan: plan.steps.map((s) => ({ ...s })) }));
  return settle(next);
}

function applyEvent(state: SessionState, event: ServerEvent): SessionState {
  const { method, params } = event;
  if (method === "scv/session/lagged") {
    if (state.resync) return state;
    return {
      ...notice(state, "warning", `Fell behind by ${params.missed} events; re-syncing.`),
      resync: { reason: "lagged", afterSeq: state.seq },
    };
  }
  if (method === "scv/session/gap") {
    const lost = params.firstAvailableSeq - 1 - state.seq;
    const next: SessionState = { ...state, seq: Math.max(state.seq, params.firstAvailableSeq - 1), resync: undefined };
    return lost > 0 ? notice(next, "warning", `${lost} events could not be replayed; parts of the transcript are missing.`) : next;
  }
  if (state.resync) return state; // the replay will bring these again, in order
  if (params.seq <= state.seq) return state; // already applied
  // Events a snapshot already covers only add to the transcript: the snapshot is the
  // authority on status, queue and pending approvals as of its seq.
  const live = params.seq > state.syncSeq;
  // Only live events must follow each other without a hole: a replay from the
  // session's file skips the seqs of what is not stored (deltas), and may end
  // short of the snapshot's seq, after which the next live event is seq + 1.
  if (live && params.seq > Math.max(state.seq, state.syncSeq) + 1) {
    return { ...state, resync: { reason: "hole", afterSeq: state.seq } };
  }
  const next = applyEffects({ ...state, seq: params.seq }, event, live);
  return next;
}

function applyEffects(state: SessionState, event: ServerEvent, live: boolean): SessionState {
  switch (event.method) {
    case "scv/turn/started": {
      const p = event.params;
      // The server's prompt when it sends one (other windows, replays); else what this window knows.
      const prompt = p.prompt || (state.turnPrompts[p.turnId] ?? (p.queueId ? state.queuedPrompts[p.queueId] : undefined));
      let next = ensureTurn(state, p.turnId, prompt);
      if (p.context?.length) next = updateTurn(next, p.turnId, (t) => ({ ...t, context: p.context!.map(copyContextRef) }));
      next = { ...next, turnPrompts: without(next.turnPrompts, p.turnId) };
      if (p.queueId) next = { ...next, queuedPrompts: without(next.queuedPrompts, p.queueId) };
      return live ? { ...next, status: "running", turnId: p.turnId } : next;
    }
    case "scv/assistant/delta": {
      const p = event.params;
      return updateTurn(ensureTurn(state, p.turnId), p.turnId, (t) => {
        const last = t.blocks[t.blocks.length - 1];
        if (last && last.kind === "text" && !last.done) {
          return { ...t, blocks: [...t.blocks.slice(0, -1), { ...last, text: last.text + p.content }] };
        }
        return { ...t, blocks: [...t.blocks, { kind: "text", text: p.content, done: false }] };
      });
    }
    case "scv/assistant/completed": {
      const p = event.params;
      return updateTurn(ensureTurn(state, p.turnId), p.turnId, (t) => {
        const last = t.blocks[t.blocks.length - 1];
        const final: TextBlock = p.interrupted
          ? { kind: "text", text: p.content, done: true, interrupted: true }
          : { kind: "text", text: p.content, done: true };
        if (last && last.kind === "text" && !last.done) return { ...t, blocks: [...t.blocks.slice(0, -1), final] };
        return p.content ? { ...t, blocks: [...t.blocks, final] } : t;
      });
    }
    case "scv/tool/proposed": {
      const p = event.params;
      return upsertTool(state, p.turnId, p.callId, p.name, (b) => ({ ...b, arguments: p.arguments }));
    }
    case "scv/tool/started": {
      const p = event.params;
      return upsertTool(state, p.turnId, p.callId, p.name, (b) => ({ ...b, status: "running" }));
    }
    case "scv/tool/completed": {
      const p = event.params;
      return upsertTool(state, p.turnId, p.callId, p.name, (b) => ({
        ...b,
        status: b.status === "denied" ? "denied" : p.success ? "succeeded" : "failed",
        output: p.output,
        truncated: p.truncated,
        live: undefined, // the final output replaces what streamed
        liveDropped: undefined,
      }));
    }
    case "scv/approval/requested": {
      const p = event.params;
      let next = attachApproval(state, p);
      if (live && !next.approvals.some((a) => a.approvalId === p.approvalId)) {
        next = { ...next, approvals: [...next.approvals, { ...p }] };
      }
      return next;
    }
    case "scv/approval/resolved": {
      const p = event.params;
      let next: SessionState = { ...state, approvals: state.approvals.filter((a) => a.approvalId !== p.approvalId) };
      next = mapTools(next, (b) =>
        b.approval?.approvalId === p.approvalId
          ? { ...b, approval: { ...b.approval, decision: p.decision }, status: p.decision === "deny" ? "denied" : "approved" }
          : b,
      );
      return next;
    }
    case "scv/context/compacted": {
      const p = event.params;
      const text = `Context compacted: ${p.beforeTokens} → ${p.afterTokens} tokens, ${p.removedMessages} messages dropped.`;
      return updateTurn(ensureTurn(state, p.turnId), p.turnId, (t) => ({ ...t, blocks: [...t.blocks, { kind: "notice", level: "info", text }] }));
    }
    case "scv/turn/completed": {
      const p = event.params;
      const next = endTurn(state, p.turnId, live, (t) => withTurnEndNotice({ ...t, status: "completed", usage: p.usage, steps: p.steps }, p.notice));
      return { ...next, lastUsage: p.usage };
    }
    case "scv/turn/cancelled": {
      const p = event.params;
      return endTurn(state, p.turnId, live, (t) => withTurnEndNotice({ ...t, status: "cancelled" }, p.notice));
    }
    case "scv/turn/failed": {
      const p = event.params;
      return endTurn(state, p.turnId, live, (t) => withTurnEndNotice({ ...t, status: "failed", failure: { code: p.code, message: p.message } }, p.notice));
    }
    case "scv/queue/snapshot": {
      const p = event.params;
      const next = { ...state, queuedPrompts: rememberPrompts(state.queuedPrompts, p.entries) };
      return live ? { ...next, queue: { entries: p.entries.map((e) => ({ ...e })), paused: p.paused } } : next;
    }
    case "scv/queue/enqueued": {
      const p = event.params;
      const next = { ...state, queuedPrompts: { ...state.queuedPrompts, [p.entry.queueId]: p.entry.prompt } };
      if (!live) return next;
      const rest = next.queue.entries.filter((e) => e.queueId !== p.entry.queueId);
      return { ...next, queue: { ...next.queue, entries: insertAt(rest, p.position, { ...p.entry }) } };
    }
    case "scv/queue/updated": {
      const p = event.params;
      const next = { ...state, queuedPrompts: { ...state.queuedPrompts, [p.entry.queueId]: p.entry.prompt } };
      if (!live) return next;
      const entries = next.queue.entries.map((e) => (e.queueId === p.entry.queueId ? { ...p.entry } : e));
      return { ...next, queue: { ...next.queue, entries } };
    }
    case "scv/queue/moved": {
      const p = event.params;
      if (!live) return state;
      const entry = state.queue.entries.find((e) => e.queueId === p.queueId);
      if (!entry) return state;
      const rest = state.queue.entries.filter((e) => e.queueId !== p.queueId);
      return { ...state, queue: { ...state.queue, entries: insertAt(rest, p.position, { ...entry, revision: p.revision }) } };
    }
    case "scv/queue/removed": {
      const p = event.params;
      const next = { ...state, queuedPrompts: without(state.queuedPrompts, p.queueId) };
      if (!live) return next;
      return { ...next, queue: { ...next.queue, entries: next.queue.entries.filter((e) => e.queueId !== p.queueId) } };
    }
    case "scv/queue/dequeued": {
      const p = event.params;
      const prompt = state.queuedPrompts[p.queueId] ?? state.queue.entries.find((e) => e.queueId === p.queueId)?.prompt;
      let next: SessionState = prompt === undefined ? state : { ...state, turnPrompts: { ...state.turnPrompts, [p.turnId]: prompt } };
      next = { ...next, queuedPrompts: without(next.queuedPrompts, p.queueId) };
      if (!live) return next;
      return { ...next, queue: { ...next.queue, entries: next.queue.entries.filter((e) => e.queueId !== p.queueId) } };
    }
    case "scv/session/paused":
      return live ? { ...state, queue: { ...state.queue, paused: event.params.paused } } : state;
    case "scv/session/cleared": {
      const next: SessionState = { ...state, transcript: [{ kind: "notice", level: "info", text: "Session cleared." }] };
      return live ? { ...next, queue: { ...next.queue, entries: [] }, approvals: [] } : next;
    }
    case "scv/session/restored": {
      const next = notice(state, "warning", restoredText(event.params));
      return live ? { ...next, queue: { ...next.queue, paused: event.params.paused } } : next;
    }
    case "scv/session/renamed":
      // Replayed renames too: the last one applied is the title.
      return { ...state, title: event.params.title };
    case "scv/session/closed": {
      const next = notice(state, "info", "Session closed.");
      return live ? { ...next, closed: true, status: "idle", turnId: undefined, approvals: [] } : next;
    }
    case "scv/mcp/status": {
      const { name, state: server, error } = event.params;
      return { ...state, mcp: { ...state.mcp, [name]: error ? { state: server, error } : { state: server } } };
    }
    default:
      if (TURN_EVENTS.has(event.method)) return reduceTurnEvent(state, event, live);
      return state; // lagged and gap are handled before; anything newer is ignored
  }
}

function usageOf(u: NonNullable<Snapshot["usage"]>): NonNullable<SessionState["usage"]> {
  return { inputTokens: u.inputTokens, outputTokens: u.outputTokens, contextTokens: u.contextTokens, contextMaxTokens: u.contextMaxTokens };
}

function copyContextRef(c: ContextRef): ContextRef {
  return c.range ? { uri: c.uri, range: { start: { ...c.range.start }, end: { ...c.range.end } } } : { uri: c.uri };
}

/**
 * Once the stream has caught up with the last snapshot, a turn still shown as
 * running that the session no longer runs ended among lost events.
 */
function settle(state: SessionState): SessionState {
  if (state.seq < state.syncSeq || state.resync) return state;
  const stale = (e: TranscriptEntry) =>
    e.kind === "turn" && e.status === "running" && (state.status !== "running" || e.turnId !== state.turnId);
  if (!state.transcript.some(stale)) return state;
  return {
    ...state,
    transcript: state.transcript.map((e) => (stale(e) ? { ...(e as TurnEntry), status: "unknown" } : e)),
  };
}

export { mcpLines, summarize } from "./summary";
