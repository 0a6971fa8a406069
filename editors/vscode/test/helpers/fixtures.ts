// Loads recorded notification sequences (JSON lines) as reducer actions.
// A line is a notification {method, params}, an attach/start reply
// {result: Snapshot, afterSeq?}, or a prompt sent by this client {prompt, result}.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { ServerEvent, Snapshot, TurnStartResult } from "../../src/client/protocol";
import type { Action } from "../../src/client/state";

export const FIXTURES = path.join(__dirname, "..", "fixtures");

export type Line =
  | { method: string; params: any }
  | { result: Snapshot; afterSeq?: number }
  | { prompt: string; result: TurnStartResult };

export function readLines(name: string): Line[] {
  return readFileSync(path.join(FIXTURES, name), "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l, i) => {
      try {
        return JSON.parse(l) as Line;
      } catch (err) {
        throw new Error(`${name}:${i + 1}: ${(err as Error).message}`);
      }
    });
}

export function toAction(line: Line): Action {
  if ("method" in line) return { type: "event", event: { method: line.method, params: line.params } as ServerEvent };
  if ("prompt" in line) return { type: "prompt", prompt: line.prompt, result: line.result };
  return { type: "snapshot", snapshot: line.result, afterSeq: line.afterSeq };
}

export function load(name: string): Action[] {
  return readLines(name).map(toAction);
}

/** The notifications of a sequence, without replies or prompts. */
export function eventsOf(actions: Action[]): Extract<Action, { type: "event" }>[] {
  return actions.filter((a): a is Extract<Action, { type: "event" }> => a.type === "event");
}

/** A notification action. */
export function ev(method: string, params: Record<string, unknown>): Action {
  return { type: "event", event: { method, params } as unknown as ServerEvent };
}

export const LIMITS = {
  maxPromptBytes: 262144,
  maxQueueItems: 64,
  maxQueueBytes: 4194304,
  maxClientFrameBytes: 8388608,
  maxServerFrameBytes: 8388608,
  replayEvents: 1024,
  maxInflightRequests: 32,
};

export function snapshot(over: Partial<Snapshot> & { seq: number }): Snapshot {
  return {
    sessionId: "s1",
    cwd: "/work/demo",
    model: "test-model",
    state: "idle",
    queue: { entries: [], paused: false },
    pendingApprovals: [],
    contextMaxTokens: 128000,
    limits: LIMITS,
    ...over,
  };
}
