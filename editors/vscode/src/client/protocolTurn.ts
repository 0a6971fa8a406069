// Wire types of steering, live configuration, reasoning, live tool output, plans,
// context usage (issue 12) and turn checkpoints (issue 13). The method names are
// in protocol.ts, the one list the server's schema test reads.
import type { ApprovalPolicy, EventBase } from "./protocol";

export type PlanStatus = "pending" | "in_progress" | "completed";

export interface PlanStep {
  step: string;
  status: PlanStatus;
}

/** A file a finished turn changed, with its line counts. */
export interface ChangedFileSummary {
  path: string;
  added: number;
  removed: number;
}

export interface TurnSteered extends EventBase { turnId: string; prompt: string }
export interface SessionConfigured extends EventBase { model: string; approvalPolicy: ApprovalPolicy }
/** A delta of the model's reasoning, like scv/assistant/delta. */
export interface AssistantReasoning extends EventBase { turnId: string; content: string }
/** Live stdout/stderr of a running tool call. */
export interface ToolOutput extends EventBase { turnId: string; callId: string; chunk: string }
export interface PlanUpdated extends EventBase { turnId: string; steps: PlanStep[] }
/** input/outputTokens: the session's totals; contextTokens: the last model call's prompt. */
export interface SessionUsage extends EventBase {
  turnId: string;
  inputTokens: number;
  outputTokens: number;
  contextTokens: number;
  contextMaxTokens: number;
}
export interface TurnChangesEvent extends EventBase { turnId: string; files: ChangedFileSummary[] }
/** `turnIds`: every turn reverted, `turnId` and the ones after it. */
export interface TurnReverted extends EventBase { turnId: string; turnIds: string[] }

// ---- requests ----

export interface SessionConfigureParams {
  sessionId: string;
  model?: string;
  approvalPolicy?: ApprovalPolicy;
}

/** The values in force after a configure, and the policies the session's approval ceiling allows. */
export interface SessionConfigureResult {
  model: string;
  approvalPolicy: ApprovalPolicy;
  allowedPolicies: ApprovalPolicy[];
}

export interface ModelInfo {
  id: string;
  source: "config" | "provider";
}

/** `error`: the provider's model list failed; the configured models are still listed. */
export interface ModelListResult {
  models: ModelInfo[];
  error?: string;
}

/** With `path` in the request, `before`/`after` hold the whole texts (absent for a missing side or a binary file). */
export interface ChangedFile {
  path: string;
  diff: string;
  binary?: boolean;
  before?: string;
  after?: string;
}

export interface TurnChangesResult {
  files: ChangedFile[];
}

export interface RevertConflict {
  path: string;
  diff: string;
}

export interface TurnRevertResult {
  reverted: string[];
  conflicts: RevertConflict[];
}

/** `ruleAddedTo`: the user config file an `allowRule` was written to. */
export interface ApprovalResolveResult {
  ruleAddedTo?: string;
}
