// One-line summaries of a session for the status bar and its tooltip.
import type { SessionState } from "./state";

/** What the status bar shows: the most pressing thing first. */
export function summarize(state: SessionState | undefined): {
  kind: "none" | "closed" | "approval" | "running" | "idle";
  queued: number;
  paused: boolean;
} {
  if (!state) return { kind: "none", queued: 0, paused: false };
  const queued = state.queue.entries.length;
  const paused = state.queue.paused;
  if (state.closed) return { kind: "closed", queued, paused };
  if (state.approvals.length) return { kind: "approval", queued, paused };
  return { kind: state.status === "running" ? "running" : "idle", queued, paused };
}

/** One line per MCP server of the session, by name: "name: state — error". */
export function mcpLines(state: SessionState | undefined): string[] {
  return Object.entries(state?.mcp ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, s]) => `${name}: ${s.state}${s.error ? ` — ${s.error}` : ""}`);
}

/** "12.3k" for 12,345 tokens. */
export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** "ctx 42% · 12.3k tok": the last model call's context fill and the session's tokens. */
export function usageText(state: SessionState | undefined): string | undefined {
  const u = state?.usage;
  if (!u) return undefined;
  const tokens = `${formatTokens(u.inputTokens + u.outputTokens)} tok`;
  if (!(u.contextMaxTokens > 0)) return tokens;
  return `ctx ${Math.round((100 * u.contextTokens) / u.contextMaxTokens)}% · ${tokens}`;
}
