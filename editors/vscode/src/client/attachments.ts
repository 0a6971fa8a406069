// Context the user attached (the `@` picker, SCV: Attach File or Selection…)
// waiting for the next prompt, which takes it along as `scv/turn/start`
// `context` and empties the list.
import type { PromptContext } from "./protocol";

/** At most this many attachments wait for one prompt; the oldest goes first. */
export const MAX_PENDING_ATTACHMENTS = 20;

export class PendingAttachments {
  private items: PromptContext[] = [];

  /** Adds an attachment; the same file (and range) attached twice is kept once. */
  add(ctx: PromptContext): void {
    const key = attachmentKey(ctx);
    this.items = this.items.filter((c) => attachmentKey(c) !== key);
    this.items.push(ctx);
    if (this.items.length > MAX_PENDING_ATTACHMENTS) this.items.shift();
  }

  get size(): number {
    return this.items.length;
  }

  /** The waiting attachments, handed to one prompt: the list is empty afterwards. */
  take(): PromptContext[] {
    const out = this.items;
    this.items = [];
    return out;
  }

  clear(): void {
    this.items = [];
  }
}

function attachmentKey(c: PromptContext): string {
  const r = c.range;
  return r ? `${c.uri}#${r.start.line}:${r.start.character}-${r.end.line}:${r.end.character}` : c.uri;
}

/** Merges the waiting attachments into a prompt's own context (the prompt's come last). */
export function withAttachments(pending: PendingAttachments, context?: PromptContext[]): PromptContext[] | undefined {
  const merged = [...pending.take(), ...(context ?? [])];
  return merged.length ? merged : undefined;
}

/** `git ls-files -z` output as relative paths (empty entries dropped). */
export function parseGitFiles(output: string): string[] {
  return output.split("\0").filter((p) => p !== "");
}
