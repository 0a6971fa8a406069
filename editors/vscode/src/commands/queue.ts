// The queue view's item commands. Each takes the tree's QueueEntry as argument.
import * as vscode from "vscode";
import type { QueueEntry } from "../client/protocol";
import { Deps, ScvCommand } from "./run";

function entryOf(arg: unknown): QueueEntry {
  const e = arg as Partial<QueueEntry> | undefined;
  if (!e || typeof e.queueId !== "string") throw new Error("no queue entry selected");
  return e as QueueEntry;
}

export const editQueued: ScvCommand = {
  id: "scv.queue.edit",
  async run({ server }: Deps, arg: unknown) {
    const e = entryOf(arg);
    // Prefill with the freshest text: the entry may have changed since the tree was drawn.
    const current = server.store.state?.queue.entries.find((q) => q.queueId === e.queueId) ?? e;
    const prompt = await vscode.window.showInputBox({ prompt: "Edit the queued prompt", value: current.prompt, ignoreFocusOut: true });
    if (prompt === undefined || prompt === current.prompt) return;
    await server.store.updateQueued(e.queueId, prompt);
  },
};

export const moveQueuedUp: ScvCommand = {
  id: "scv.queue.moveUp",
  async run({ server }: Deps, arg: unknown) {
    await server.store.moveQueued(entryOf(arg).queueId, -1);
  },
};

export const moveQueuedDown: ScvCommand = {
  id: "scv.queue.moveDown",
  async run({ server }: Deps, arg: unknown) {
    await server.store.moveQueued(entryOf(arg).queueId, 1);
  },
};

export const removeQueued: ScvCommand = {
  id: "scv.queue.remove",
  async run({ server }: Deps, arg: unknown) {
    await server.store.removeQueued(entryOf(arg).queueId);
  },
};

export const refreshQueue: ScvCommand = {
  id: "scv.queue.refresh",
  async run({ server }: Deps) {
    await server.store.reloadQueue();
  },
};
