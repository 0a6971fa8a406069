// The rows of the session picker, from `scv/session/list`. Pure, so the
// formatting is tested without VS Code; older servers leave out title,
// updatedAt and turns, and each has a fallback.
import type { SessionInfo, SessionListParams, SessionListResult } from "./protocol";

/** The picker lists at most this many sessions (pages of PICKER_PAGE_SIZE). */
export const PICKER_MAX_SESSIONS = 500;
export const PICKER_PAGE_SIZE = 100;
/** A title longer than this is cut with an ellipsis. */
export const PICKER_TITLE_CHARS = 80;

export interface SessionRow {
  label: string;
  description: string;
  detail: string;
  sessionId: string;
  title?: string;
}

/** "just now", "5 min ago", "3 h ago", "2 days ago", or the date when older than 30 days. */
export function formatAge(iso: string | undefined, now: Date): string {
  if (!iso) return "";
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return "";
  const s = Math.max(0, Math.floor((now.getTime() - t) / 1000));
  if (s < 60) return "just now";
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min ago`;
  const h = Math.floor(min / 60);
  if (h < 24) return `${h} h ago`;
  const days = Math.floor(h / 24);
  if (days <= 30) return days === 1 ? "yesterday" : `${days} days ago`;
  return new Date(t).toISOString().slice(0, 10);
}

function firstLine(text: string): string {
  const line = text.split("\n").find((l) => l.trim()) ?? "";
  const t = line.trim();
  return t.length > PICKER_TITLE_CHARS ? `${t.slice(0, PICKER_TITLE_CHARS - 1)}…` : t;
}

/**
 * One picker row. The label is the title, else the first prompt this window
 * knows for the session, else its id.
 */
export function sessionRow(s: SessionInfo, now: Date, firstPrompt?: string): SessionRow {
  const title = s.title ? firstLine(s.title) : "";
  const fallback = firstPrompt ? firstLine(firstPrompt) : "";
  const age = formatAge(s.updatedAt ?? s.createdAt, now);
  const description = [
    s.state,
    s.turns !== undefined ? `${s.turns} turn${s.turns === 1 ? "" : "s"}` : "",
    s.queued ? `${s.queued} queued` : "",
    age,
  ].filter(Boolean);
  return {
    label: title || fallback || s.sessionId,
    description: description.join(" · "),
    detail: `${s.cwd} · ${s.sessionId}`,
    sessionId: s.sessionId,
    title: s.title || undefined,
  };
}

/**
 * Reads pages of `scv/session/list` until the last one or PICKER_MAX_SESSIONS;
 * a server that repeats a cursor ends the reading instead of looping.
 */
export async function collectSessions(list: (p: SessionListParams) => Promise<SessionListResult>): Promise<{ sessions: SessionInfo[]; more: boolean }> {
  const sessions: SessionInfo[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    const page = await list({ cursor, limit: PICKER_PAGE_SIZE });
    sessions.push(...page.sessions);
    if (sessions.length >= PICKER_MAX_SESSIONS) return { sessions: sessions.slice(0, PICKER_MAX_SESSIONS), more: true };
    if (!page.nextCursor || seen.has(page.nextCursor)) return { sessions, more: false };
    seen.add(page.nextCursor);
    cursor = page.nextCursor;
  }
}
