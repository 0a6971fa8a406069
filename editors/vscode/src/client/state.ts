// The session state the views render, built only by the reducer.
import type {
  ApprovalPolicy,
  ApprovalRequested,
  ChangedFileSummary,
  PlanStep,
  RevertConflict,
  ContextRef,
  Decision,
  Limits,
  McpState,
  QueueState,
  Risk,
  ServerEvent,
  Snapshot,
  TurnStartResult,
  Usage,
} from "./protocol";

export interface TextBlock {
  kind: "text";
  text: string;
  /** True once `assistant/completed` gave the final text of this message. */
  done: boolean;
  /** The response was cut off; `text` is what was received. */
  interrupted?: boolean;
}

export type ToolStatus =
  | "proposed"
  | "awaiting-approval"
  | "approved"
  | "denied"
  | "running"
  | "succeeded"
  | "failed"
  | "abandoned";

export interface ApprovalView {
  approvalId: string;
  risk: Risk;
  cwd: string;
  summary: string;
  decision?: Decision;
  suggestedRule?: string;
  /** Why a rule of the user's config that covers the call is held (see heldRule.ts). */
  notice?: string;
  confirmsRule?: boolean;
}

export interface ToolBlock {
  kind: "tool";
  callId: string;
  name: string;
  /** JSON text as the model produced it. */
  arguments: string;
  status: ToolStatus;
  output?: string;
  truncated?: boolean;
  approval?: ApprovalView;
  /** The tail of what the call printed while it ran (scv/tool/output), at most MAX_LIVE_OUTPUT_CHARS. */
  live?: string;
  /** Characters of live output dropped from the front of `live`. */
  liveDropped?: number;
}

/** The model's reasoning, streamed; shown folded. */
export interface ReasoningBlock {
  kind: "reasoning";
  text: string;
}

/** A message the user added to the running turn (scv/turn/steered). */
export interface SteerBlock {
  kind: "steer";
  prompt: string;
}

export type NoticeLevel = "info" | "warning" | "error";

export interface NoticeBlock {
  kind: "notice";
  level: NoticeLevel;
  text: string;
}

export type Block = TextBlock | ToolBlock | NoticeBlock | ReasoningBlock | SteerBlock;

/** `unknown`: the turn's end was among events this client lost. */
export type TurnStatus = "running" | "completed" | "cancelled" | "failed" | "unknown";

export interface TurnEntry {
  kind: "turn";
  turnId: string;
  prompt?: string;
  /** The attachments sent with the prompt (without their text). */
  context?: ContextRef[];
  status: TurnStatus;
  blocks: Block[];
  usage?: Usage;
  steps?: number;
  failure?: { code: string; message: string };
  /** The model's latest plan in this turn. */
  plan?: PlanStep[];
  /** The files the turn changed (scv/turn/changes). */
  changes?: ChangedFileSummary[];
  /** Undone by a revert of this turn or an earlier one. */
  reverted?: boolean;
  /** Files a revert left alone because they changed since; "Revert anyway" forces them. */
  revertConflicts?: RevertConflict[];
}

export interface SessionNotice {
  kind: "notice";
  level: NoticeLevel;
  text: string;
}

export type TranscriptEntry = TurnEntry | SessionNotice;

export interface ResyncRequest {
  reason: "lagged" | "hole";
  /** Re-attach with this `afterSeq` to receive what was missed. */
  afterSeq: number;
}

export interface SessionState {
  sessionId: string;
  cwd: string;
  model: string;
  status: "idle" | "running";
  turnId?: string;
  /** The session's title (set by the server, or by a rename). */
  title?: string;
  /** The last event applied (or covered by a snapshot). */
  seq: number;
  /** The seq of the last snapshot: replayed events at or below it only add to the transcript. */
  syncSeq: number;
  queue: QueueState;
  /** Approvals still waiting for a decision, oldest first. */
  approvals: ApprovalRequested[];
  transcript: TranscriptEntry[];
  lastUsage?: Usage;
  /** The policy in force, once a configure said it. */
  approvalPolicy?: ApprovalPolicy;
  /** The session's token totals and context fill (scv/session/usage). */
  usage?: { inputTokens: number; outputTokens: number; contextTokens: number; contextMaxTokens: number };
  contextMaxTokens?: number;
  limits?: Limits;
  closed: boolean;
  /** Set when events were lost; the owner re-attaches and clears it with a snapshot. */
  resync?: ResyncRequest;
  /** Prompt text of queue entries seen, so a dequeued turn can show its prompt. */
  queuedPrompts: Record<string, string>;
  /** Prompt text of turns whose `turn/started` has not been seen yet. */
  turnPrompts: Record<string, string>;
  /** The session's MCP servers by name, as their `scv/mcp/status` events last said. */
  mcp?: Record<string, { state: McpState; error?: string }>;
}

/** Everything that changes a session state. */
export type Action =
  | { type: "event"; event: ServerEvent }
  | { type: "snapshot"; snapshot: Snapshot; afterSeq?: number }
  | { type: "prompt"; prompt: string; result: TurnStartResult }
  | { type: "queue"; queue: QueueState }
  | { type: "notice"; level: NoticeLevel; text: string }
  /** The title a session list gave, for a snapshot without one. */
  | { type: "title"; title: string }
  | { type: "lost"; reason: string }
  /** A revert's answer: conflicts to show under the turn (none clears them). */
  | { type: "revertConflicts"; turnId: string; conflicts: RevertConflict[] };
