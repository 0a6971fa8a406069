// The texts the read-only diff documents of turn changes show, by document path,
// bounded so opening many diffs does not hold every file's texts forever.

/** Texts kept for diff documents; the least recently opened go first. */
export const MAX_DIFF_DOCUMENTS = 40;

/** The two document paths of a file's before ↔ after diff in a turn (the file name is kept for the language mode). */
export function diffPaths(turnId: string, path: string): { before: string; after: string } {
  const p = path.replace(/^\/+/, "");
  return { before: `/${encodeURIComponent(turnId)}/before/${p}`, after: `/${encodeURIComponent(turnId)}/after/${p}` };
}

export class DiffDocuments {
  private readonly texts = new Map<string, string>();

  constructor(private readonly max = MAX_DIFF_DOCUMENTS) {}

  set(path: string, text: string): void {
    this.texts.delete(path);
    this.texts.set(path, text);
    while (this.texts.size > this.max) this.texts.delete(this.texts.keys().next().value as string);
  }

  /** The text, or a note when it was dropped (a document reopened long after). */
  get(path: string): string {
    return this.texts.get(path) ?? "(no longer available: open the diff again from the chat)";
  }

  get size(): number {
    return this.texts.size;
  }
}
