// Transcript helpers the reducers share: find, create and update turns and their
// blocks without mutating the state they are given.
import type { ApprovalRequested, Decision } from "./protocol";
import type { ApprovalView, Block, NoticeLevel, SessionState, ToolBlock, ToolStatus, TurnEntry } from "./state";

export function endTurn(state: SessionState, turnId: string, live: boolean, fn: (t: TurnEntry) => TurnEntry): SessionState {
  let next = updateTurn(ensureTurn(state, turnId), turnId, (t) => {
    const ended = fn(t);
    // Calls that never finished are abandoned with their turn.
    const open: ToolStatus[] = ["proposed", "awaiting-approval", "approved", "running"];
    return {
      ...ended,
      blocks: ended.blocks.map((b) => (b.kind === "tool" && open.includes(b.status) ? { ...b, status: "abandoned" } : b)),
    };
  });
  // A turn's pending approvals end with it.
  next = { ...next, approvals: next.approvals.filter((a) => a.turnId !== turnId) };
  if (live && next.turnId === turnId) next = { ...next, status: "idle", turnId: undefined };
  return next;
}

/**
 * The turn with the notice its terminal event carries (the session's file is nearly full), as a
 * warning after its blocks.
 */
export function withTurnEndNotice(t: TurnEntry, text: string | undefined): TurnEntry {
  return text ? { ...t, blocks: [...t.blocks, { kind: "notice", level: "warning", text }] } : t;
}

export function attachApproval(state: SessionState, a: ApprovalRequested): SessionState {
  return upsertTool(state, a.turnId, a.callId, a.name, (b) => ({
    ...b,
    status: b.approval?.decision ? b.status : "awaiting-approval",
    approval: approvalView(a, b.approval?.decision),
  }));
}

/** What a tool card keeps of an approval request. */
export function approvalView(a: ApprovalRequested, decision?: Decision): ApprovalView {
  return {
    approvalId: a.approvalId, risk: a.risk, cwd: a.cwd, summary: a.summary, decision,
    suggestedRule: a.suggestedRule, notice: a.notice, confirmsRule: a.confirmsRule,
  };
}

export function upsertTool(
  state: SessionState,
  turnId: string,
  callId: string,
  name: string,
  fn: (b: ToolBlock) => ToolBlock,
): SessionState {
  return updateTurn(ensureTurn(state, turnId), turnId, (t) => {
    const i = t.blocks.findIndex((b) => b.kind === "tool" && b.callId === callId);
    if (i < 0) {
      const fresh: ToolBlock = { kind: "tool", callId, name, arguments: "", status: "proposed" };
      return { ...t, blocks: [...closeText(t.blocks), fn(fresh)] };
    }
    const blocks = t.blocks.slice();
    blocks[i] = fn(blocks[i] as ToolBlock);
    return { ...t, blocks };
  });
}

/** A tool call ends the streamed message before it: later deltas start a new one. */
export function closeText(blocks: Block[]): Block[] {
  const last = blocks[blocks.length - 1];
  if (last && last.kind === "text" && !last.done) return [...blocks.slice(0, -1), { ...last, done: true }];
  return blocks;
}

export function mapTools(state: SessionState, fn: (b: ToolBlock) => ToolBlock): SessionState {
  let changed = false;
  const transcript = state.transcript.map((e) => {
    if (e.kind !== "turn") return e;
    let touched = false;
    const blocks = e.blocks.map((b) => {
      if (b.kind !== "tool") return b;
      const nb = fn(b);
      if (nb !== b) touched = true;
      return nb;
    });
    if (!touched) return e;
    changed = true;
    return { ...e, blocks };
  });
  return changed ? { ...state, transcript } : state;
}

export function findTurn(state: SessionState, turnId: string): TurnEntry | undefined {
  for (let i = state.transcript.length - 1; i >= 0; i--) {
    const e = state.transcript[i];
    if (e.kind === "turn" && e.turnId === turnId) return e;
  }
  return undefined;
}

export function ensureTurn(state: SessionState, turnId: string, prompt?: string): SessionState {
  const have = findTurn(state, turnId);
  if (have) return prompt && !have.prompt ? updateTurn(state, turnId, (t) => ({ ...t, prompt })) : state;
  const turn: TurnEntry = {
    kind: "turn",
    turnId,
    prompt: prompt ?? state.turnPrompts[turnId],
    status: "running",
    blocks: [],
  };
  return { ...state, transcript: [...state.transcript, turn] };
}

export function updateTurn(state: SessionState, turnId: string, fn: (t: TurnEntry) => TurnEntry): SessionState {
  const i = state.transcript.findIndex((e) => e.kind === "turn" && e.turnId === turnId);
  if (i < 0) return state;
  const transcript = state.transcript.slice();
  transcript[i] = fn(transcript[i] as TurnEntry);
  return { ...state, transcript };
}

export function notice(state: SessionState, level: NoticeLevel, text: string): SessionState {
  return { ...state, transcript: [...state.transcript, { kind: "notice", level, text }] };
}

