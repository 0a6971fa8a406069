// The reducer's part for steering, live configuration, reasoning, live tool
// output, plans, usage (issue 12) and turn checkpoints (issue 13). Pure, like
// reducer.ts, which hands these events here.
import type { RevertConflict, ServerEvent } from "./protocol";
import type { SessionState } from "./state";
import { closeText, ensureTurn, updateTurn, upsertTool } from "./turns";

/**
 * Live output a tool card keeps: the tail, so 10 MB of `go test` output costs the
 * state, the HTML and the DOM no more than this.
 */
export const MAX_LIVE_OUTPUT_CHARS = 64 * 1024;

/** The methods reduceTurnEvent handles. */
export const TURN_EVENTS: ReadonlySet<string> = new Set([
  "scv/turn/steered",
  "scv/session/configured",
  "scv/assistant/reasoning",
  "scv/tool/output",
  "scv/plan/updated",
  "scv/session/usage",
  "scv/turn/changes",
  "scv/turn/reverted",
]);

/** Applies one of TURN_EVENTS; `live` is false for events a snapshot already covers. */
export function reduceTurnEvent(state: SessionState, event: ServerEvent, live: boolean): SessionState {
  switch (event.method) {
    case "scv/turn/steered": {
      const p = event.params;
      return updateTurn(ensureTurn(state, p.turnId), p.turnId, (t) => ({
        ...t,
        blocks: [...closeText(t.blocks), { kind: "steer", prompt: p.prompt }],
      }));
    }
    case "scv/session/configured": {
      const p = event.params;
      // A replayed configure is older than the snapshot's model: only live ones count.
      return live ? { ...state, model: p.model, approvalPolicy: p.approvalPolicy } : state;
    }
    case "scv/assistant/reasoning": {
      const p = event.params;
      return updateTurn(ensureTurn(state, p.turnId), p.turnId, (t) => {
        const last = t.blocks[t.blocks.length - 1];
        if (last && last.kind === "reasoning") {
          return { ...t, blocks: [...t.blocks.slice(0, -1), { ...last, text: last.text + p.content }] };
        }
        return { ...t, blocks: [...t.blocks, { kind: "reasoning", text: p.content }] };
      });
    }
    case "scv/tool/output": {
      const p = event.params;
      return upsertTool(state, p.turnId, p.callId, "", (b) => {
        const all = (b.live ?? "") + p.chunk;
        const drop = Math.max(0, all.length - MAX_LIVE_OUTPUT_CHARS);
        return { ...b, live: drop ? all.slice(drop) : all, liveDropped: (b.liveDropped ?? 0) + drop };
      });
    }
    case "scv/plan/updated": {
      const p = event.params;
      return updateTurn(ensureTurn(state, p.turnId), p.turnId, (t) => ({ ...t, plan: p.steps.map((s) => ({ ...s })) }));
    }
    case "scv/session/usage": {
      // Replayed ones too: the last applied is the newest.
      const { inputTokens, outputTokens, contextTokens, contextMaxTokens } = event.params;
      return { ...state, usage: { inputTokens, outputTokens, contextTokens, contextMaxTokens } };
    }
    case "scv/turn/changes": {
      const p = event.params;
      return updateTurn(ensureTurn(state, p.turnId), p.turnId, (t) => ({ ...t, changes: p.files.map((f) => ({ ...f })) }));
    }
    case "scv/turn/reverted": {
      const ids = new Set([event.params.turnId, ...event.params.turnIds]);
      const transcript = state.transcript.map((e) =>
        e.kind === "turn" && ids.has(e.turnId) ? { ...e, reverted: true, revertConflicts: undefined } : e,
      );
      return { ...state, transcript };
    }
    default:
      return state;
  }
}

/** A revert's conflicts, shown under the turn until a forced revert or the next answer. */
export function setRevertConflicts(state: SessionState, turnId: string, conflicts: RevertConflict[]): SessionState {
  return updateTurn(state, turnId, (t) => ({ ...t, revertConflicts: conflicts.length ? conflicts.map((c) => ({ ...c })) : undefined }));
}
