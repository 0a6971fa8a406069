// Types and names of the scv wire protocol, version 1 (client side).
// Kept free of any `vscode` import so the core can be tested in plain node.
// The types of issue 12 and 13 (steer, configure, reasoning, live output, plans,
// usage, checkpoints) are in protocolTurn.ts; every name is here.

import type {
  AssistantReasoning,
  PlanUpdated,
  SessionConfigured,
  SessionUsage,
  ToolOutput,
  TurnChangesEvent,
  TurnReverted,
  TurnSteered,
} from "./protocolTurn";
export * from "./protocolTurn";

export const PROTOCOL_VERSION = 1;

export const Methods = {
  sessionStart: "scv/session/start",
  sessionAttach: "scv/session/attach",
  sessionDetach: "scv/session/detach",
  sessionList: "scv/session/list",
  sessionClose: "scv/session/close",
  sessionClear: "scv/session/clear",
  sessionPause: "scv/session/pause",
  sessionRename: "scv/session/rename",
  sessionDelete: "scv/session/delete",
  sessionFork: "scv/session/fork",
  turnStart: "scv/turn/start",
  turnCancel: "scv/turn/cancel",
  queueList: "scv/queue/list",
  queueUpdate: "scv/queue/update",
  queueMove: "scv/queue/move",
  queueRemove: "scv/queue/remove",
  approvalResolve: "scv/approval/resolve",
  daemonStatus: "scv/daemon/status",
  mcpList: "scv/mcp/list",
  turnSteer: "scv/turn/steer",
  sessionConfigure: "scv/session/configure",
  modelList: "scv/model/list",
  skillList: "scv/skill/list",
  turnChanges: "scv/turn/changes",
  turnRevert: "scv/turn/revert",
} as const;

export const Notifications = {
  turnStarted: "scv/turn/started",
  assistantDelta: "scv/assistant/delta",
  assistantCompleted: "scv/assistant/completed",
  toolProposed: "scv/tool/proposed",
  toolStarted: "scv/tool/started",
  toolCompleted: "scv/tool/completed",
  approvalRequested: "scv/approval/requested",
  approvalResolved: "scv/approval/resolved",
  contextCompacted: "scv/context/compacted",
  turnCompleted: "scv/turn/completed",
  turnCancelled: "scv/turn/cancelled",
  turnFailed: "scv/turn/failed",
  queueSnapshot: "scv/queue/snapshot",
  queueEnqueued: "scv/queue/enqueued",
  queueUpdated: "scv/queue/updated",
  queueMoved: "scv/queue/moved",
  queueRemoved: "scv/queue/removed",
  queueDequeued: "scv/queue/dequeued",
  sessionPaused: "scv/session/paused",
  sessionCleared: "scv/session/cleared",
  sessionClosed: "scv/session/closed",
  sessionRenamed: "scv/session/renamed",
  sessionRestored: "scv/session/restored",
  mcpStatus: "scv/mcp/status",
  sessionLagged: "scv/session/lagged",
  sessionGap: "scv/session/gap",
  turnSteered: "scv/turn/steered",
  sessionConfigured: "scv/session/configured",
  assistantReasoning: "scv/assistant/reasoning",
  toolOutput: "scv/tool/output",
  planUpdated: "scv/plan/updated",
  sessionUsage: "scv/session/usage",
  /** Same name as the request: the event says which files a finished turn changed. */
  turnChangesEvent: "scv/turn/changes",
  turnReverted: "scv/turn/reverted",
} as const;

export type NotificationMethod = (typeof Notifications)[keyof typeof Notifications];
export const ALL_NOTIFICATIONS: readonly NotificationMethod[] = Object.values(Notifications);

/** Application error codes carried in `error.data.code` of a -32000 error. */
export type ErrorCode =
  | "session_not_found"
  | "turn_not_found"
  | "turn_active"
  | "queue_not_found"
  | "queue_conflict"
  | "queue_limit"
  | "approval_not_found"
  | "invalid_prompt"
  | "invalid_cwd"
  | "provider_not_configured"
  | "version_mismatch"
  | "frame_too_large"
  | "too_many_requests"
  | "unsupported"
  | "session_owned"
  | "store_failed"
  | "session_too_large";

/** `code` of a `scv/turn/failed` for a turn that was running when its owner stopped. */
export const INTERRUPTED = "interrupted";

export const APPLICATION_ERROR = -32000;

export type ApprovalPolicy = "never" | "on-risk" | "always" | "auto";
export const APPROVAL_POLICIES: readonly ApprovalPolicy[] = ["never", "on-risk", "always", "auto"];
export type Decision = "approve" | "deny" | "approve-session";
export type Risk = "read-only" | "write" | "exec" | "network" | "mcp";

/** The state of one MCP server of a session (`scv/mcp/status`, `scv/mcp/list`). */
export type McpState = "starting" | "ready" | "failed" | "stopped";
export type DaemonMode = "auto" | "never" | "required";

export interface Limits {
  maxPromptBytes: number;
  maxQueueItems: number;
  maxQueueBytes: number;
  maxClientFrameBytes: number;
  maxServerFrameBytes: number;
  replayEvents: number;
  maxInflightRequests: number;
}

/** `capabilities.experimental.scv` of the InitializeResult. */
export interface ScvCapabilities {
  protocolVersion: number;
  methods: string[];
  notifications: string[];
  limits: Limits;
  approvalPolicies: ApprovalPolicy[];
  daemon: boolean;
}

export interface QueueEntry {
  queueId: string;
  revision: number;
  prompt: string;
  submitter: string;
}

export interface QueueState {
  entries: QueueEntry[];
  paused: boolean;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

export interface PromptContext {
  uri: string;
  range?: Range;
  text?: string;
}

// ---- notification params ----

export interface EventBase {
  sessionId: string;
  seq: number;
}

/** An attachment of a prompt, named without its text. */
export interface ContextRef {
  uri: string;
  range?: Range;
}

/** `prompt` and `context` are absent from servers older than durable sessions. */
export interface TurnStarted extends EventBase { turnId: string; queueId?: string; prompt?: string; context?: ContextRef[] }
export interface AssistantDelta extends EventBase { turnId: string; content: string }
/** `interrupted`: the response was cut off (cancel, shutdown) and this is the text received so far. */
export interface AssistantCompleted extends EventBase { turnId: string; content: string; interrupted?: boolean }
export interface ToolProposed extends EventBase { turnId: string; callId: string; name: string; arguments: string }
export interface ToolStarted extends EventBase { turnId: string; callId: string; name: string }
export interface ToolCompleted extends EventBase {
  turnId: string;
  callId: string;
  name: string;
  success: boolean;
  output: string;
  truncated: boolean;
}
export interface ApprovalRequested extends EventBase {
  turnId: string;
  approvalId: string;
  callId: string;
  name: string;
  risk: Risk;
  cwd: string;
  summary: string;
  /** A rule such as "shell:go test *" the user may allow for good; absent when none fits. */
  suggestedRule?: string;
  /** Set when a rule of the user's config covers the call but waits for confirmation: names the rule and the file. */
  notice?: string;
  /** `suggestedRule` is the rule `notice` names: answering with it confirms that rule. */
  confirmsRule?: boolean;
}
export interface ApprovalResolved extends EventBase { turnId: string; approvalId: string; decision: Decision }
export interface ContextCompacted extends EventBase {
  turnId: string;
  beforeTokens: number;
  afterTokens: number;
  removedMessages: number;
}
/**
 * `changesPending`: the turn's `scv/turn/changes` follows this event. `notice`: said once per
 * session, the session's file passed 80 % of its bound (`sessions.max_log_bytes`), so it takes no
 * new prompt.
 */
export interface TurnCompleted extends EventBase { turnId: string; steps: number; usage: Usage; changesPending?: boolean; notice?: string }
export interface TurnCancelled extends EventBase { turnId: string; changesPending?: boolean; notice?: string }
export interface TurnFailed extends EventBase { turnId: string; code: string; message: string; changesPending?: boolean; notice?: string }
export interface QueueSnapshot extends EventBase { entries: QueueEntry[]; paused: boolean }
export interface QueueEnqueued extends EventBase { entry: QueueEntry; position: number }
export interface QueueUpdated extends EventBase { entry: QueueEntry }
export interface QueueMoved extends EventBase { queueId: string; position: number; revision: number }
export interface QueueRemoved extends EventBase { queueId: string; revision: number }
export interface QueueDequeued extends EventBase { queueId: string; turnId: string }
export interface SessionPaused extends EventBase { paused: boolean }
export type SessionCleared = EventBase;
export type SessionClosed = EventBase;
/** Lagged has no seq of its own. */
export interface SessionLagged { sessionId: string; missed: number; seq?: number }
export interface SessionGap extends EventBase { firstAvailableSeq: number }
/** A stored session came back after its owner stopped; it is paused so nothing runs by surprise. */
export interface SessionRestored extends EventBase {
  interruptedTurnId?: string;
  cancelledApprovals: string[];
  queued: number;
  paused: boolean;
}
export interface SessionRenamed extends EventBase { title: string }
export interface McpStatus extends EventBase { name: string; state: McpState; error?: string }

/** Maps each notification method to its params, so one handler can be typed per method. */
export interface NotificationParams {
  "scv/turn/started": TurnStarted;
  "scv/assistant/delta": AssistantDelta;
  "scv/assistant/completed": AssistantCompleted;
  "scv/tool/proposed": ToolProposed;
  "scv/tool/started": ToolStarted;
  "scv/tool/completed": ToolCompleted;
  "scv/approval/requested": ApprovalRequested;
  "scv/approval/resolved": ApprovalResolved;
  "scv/context/compacted": ContextCompacted;
  "scv/turn/completed": TurnCompleted;
  "scv/turn/cancelled": TurnCancelled;
  "scv/turn/failed": TurnFailed;
  "scv/queue/snapshot": QueueSnapshot;
  "scv/queue/enqueued": QueueEnqueued;
  "scv/queue/updated": QueueUpdated;
  "scv/queue/moved": QueueMoved;
  "scv/queue/removed": QueueRemoved;
  "scv/queue/dequeued": QueueDequeued;
  "scv/session/paused": SessionPaused;
  "scv/session/cleared": SessionCleared;
  "scv/session/closed": SessionClosed;
  "scv/session/renamed": SessionRenamed;
  "scv/session/restored": SessionRestored;
  "scv/mcp/status": McpStatus;
  "scv/session/lagged": SessionLagged;
  "scv/session/gap": SessionGap;
  "scv/turn/steered": TurnSteered;
  "scv/session/configured": SessionConfigured;
  "scv/assistant/reasoning": AssistantReasoning;
  "scv/tool/output": ToolOutput;
  "scv/plan/updated": PlanUpdated;
  "scv/session/usage": SessionUsage;
  "scv/turn/changes": TurnChangesEvent;
  "scv/turn/reverted": TurnReverted;
}

/** One server notification as it came off the wire. */
export type ServerEvent = {
  [M in NotificationMethod]: { method: M; params: NotificationParams[M] };
}[NotificationMethod];

// ---- request params and results ----

export interface SessionStartParams {
  cwd: string;
  model?: string;
  provider?: string;
  baseUrl?: string;
  approvalPolicy?: ApprovalPolicy;
  noTools?: boolean;
  /** MCP servers for this session: `[mcp_servers.NAME]` tables in camelCase. */
  mcpServers?: Record<string, Record<string, unknown>>;
}

export interface McpServerInfo {
  name: string;
  transport: "stdio" | "http";
  state: McpState;
  error?: string;
  tools: { name: string; tool: string; description: string }[];
}

export interface McpListResult {
  servers: McpServerInfo[];
}

export interface Snapshot {
  sessionId: string;
  cwd: string;
  model: string;
  state: "idle" | "running";
  turnId?: string;
  queue: QueueState;
  pendingApprovals: ApprovalRequested[];
  seq: number;
  contextMaxTokens: number;
  limits: Limits;
  /** Absent from servers older than durable sessions. */
  title?: string;
  /** The last scv/session/usage and scv/plan/updated, so a window that attaches late shows them (newer servers). */
  usage?: Omit<SessionUsage, "sessionId" | "seq">;
  plan?: Omit<PlanUpdated, "sessionId" | "seq">;
  approvalPolicy?: ApprovalPolicy;
}

/** `stored`: on disk, not loaded by the server. */
export type SessionListState = "idle" | "running" | "stored";

/** A row of `scv/session/list`. The members marked optional are absent from older servers. */
export interface SessionInfo {
  sessionId: string;
  cwd: string;
  model?: string;
  state: SessionListState;
  queued?: number;
  clients?: number;
  createdAt?: string;
  title?: string;
  updatedAt?: string;
  turns?: number;
}

export interface SessionListParams {
  cwd?: string;
  cursor?: string;
  limit?: number;
}

export interface SessionListResult {
  sessions: SessionInfo[];
  /** Present when more rows follow; pass it back as `cursor`. */
  nextCursor?: string;
}

/** `full`: replay the whole transcript (from the session's file), not only the replay ring. */
export type ReplayMode = "full";

export type TurnStartResult =
  | { status: "started"; turnId: string }
  | { status: "queued"; entry: QueueEntry; position: number };

export interface QueueMoveResult {
  queueId: string;
  revision: number;
  position: number;
}

export interface QueueRemoveResult {
  queueId: string;
  revision: number;
}

export interface DaemonStatus {
  mode: "daemon" | "stdio";
  pid: number;
  version: string;
  uptimeMs: number;
  /** Absent when served in-process. */
  socket?: string;
  clients: number;
  /** A count, or the sessions themselves (the spec leaves it open). */
  sessions: number | SessionInfo[];
}
