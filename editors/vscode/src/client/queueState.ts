// Small copy-on-write helpers for the queue and the prompt maps of a SessionState.
import type { QueueEntry, QueueState } from "./protocol";

export function insertAt(entries: QueueEntry[], position: number, entry: QueueEntry): QueueEntry[] {
  const at = Math.max(0, Math.min(position, entries.length));
  return [...entries.slice(0, at), entry, ...entries.slice(at)];
}

export function cloneQueue(q: QueueState): QueueState {
  return { entries: (q.entries ?? []).map((e) => ({ ...e })), paused: q.paused };
}

export function rememberPrompts(known: Record<string, string>, entries: QueueEntry[]): Record<string, string> {
  if (!entries.length) return known;
  const out = { ...known };
  for (const e of entries) out[e.queueId] = e.prompt;
  return out;
}

export function without(map: Record<string, string>, key: string): Record<string, string> {
  if (!(key in map)) return map;
  const out = { ...map };
  delete out[key];
  return out;
}
