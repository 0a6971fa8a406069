// The content an edit approval proposes, worked out from the approval itself:
// for write_file and edit_file the runtime's summary is a head line naming the
// file, then a unified diff of the whole change (runtime/tools/write.go). The
// diff applied to the file as it is on disk gives the proposed text, which
// VS Code's diff editor shows beside the current one.

/** Tools whose approval summary is a head line and a unified diff. */
export const EDIT_TOOLS: readonly string[] = ["write_file", "edit_file"];

export interface EditSummary {
  /** The file, relative to the session's folder, with `/` separators. */
  path: string;
  /** The file does not exist yet. */
  isNew: boolean;
  /** The unified diff (from `--- a/…`). */
  diff: string;
}

/**
 * The file and diff of an edit approval, or undefined when there is none to
 * show: another tool, an error instead of a plan, a binary file, no changes,
 * or a diff the runtime cut at its output limit.
 */
export function parseEditSummary(name: string, summary: string): EditSummary | undefined {
  if (!EDIT_TOOLS.includes(name)) return undefined;
  const nl = summary.indexOf("\n");
  if (nl < 0 || /\n\[diff truncated\]$/.test(summary)) return undefined;
  const head = summary.slice(0, nl);
  const diff = summary.slice(nl + 1);
  const m = new RegExp(`^${name} (.+?)( \\(new file\\))?$`).exec(head);
  if (!m || !diff.startsWith(`--- a/${m[1]}\n+++ b/${m[1]}\n`)) return undefined;
  return { path: m[1], isNew: m[2] !== undefined, diff };
}

/** A diff that does not fit the file: it changed since the approval was asked. */
export class StaleDiffError extends Error {}

interface Line {
  text: string;
  /** False for a last line without a newline ("\ No newline at end of file"). */
  eol: boolean;
}

function splitLines(text: string): Line[] {
  if (text === "") return [];
  const parts = text.split("\n");
  const last = parts.pop()!;
  const lines = parts.map((t) => ({ text: t, eol: true }));
  if (last !== "") lines.push({ text: last, eol: false });
  return lines;
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** Applies a unified diff to current; throws StaleDiffError when a context or removed line differs. */
export function applyUnifiedDiff(current: string, diff: string): string {
  const old = splitLines(current);
  const out: Line[] = [];
  let at = 0; // next line of old not yet copied
  const lines = diff.split("\n");
  if (lines.at(-1) === "") lines.pop();
  let i = 2; // after the --- / +++ lines
  while (i < lines.length) {
    const h = HUNK.exec(lines[i]);
    if (!h) throw new StaleDiffError(`not a hunk header: ${lines[i]}`);
    const oldCount = h[2] === undefined ? 1 : Number(h[2]);
    // An empty old side ("-0,0") starts after line N, not at it.
    const start = oldCount === 0 ? Number(h[1]) : Number(h[1]) - 1;
    if (start < at || start > old.length) throw new StaleDiffError(`hunk ${lines[i]} is outside the file`);
    out.push(...old.slice(at, start));
    at = start;
    i++;
    while (i < lines.length && !lines[i].startsWith("@@")) {
      const line = lines[i];
      const body = line.slice(1);
      const noEol = lines[i + 1]?.startsWith("\\");
      switch (line[0]) {
        case " ":
        case "-":
          if (old[at]?.text !== body || old[at].eol === !!noEol) {
            throw new StaleDiffError(`line ${at + 1} is no longer ${JSON.stringify(body)}`);
          }
          if (line[0] === " ") out.push(old[at]);
          at++;
          break;
        case "+":
          out.push({ text: body, eol: !noEol });
          break;
        default:
          throw new StaleDiffError(`unexpected diff line: ${line}`);
      }
      i += noEol ? 2 : 1;
    }
  }
  out.push(...old.slice(at));
  return out.map((l) => (l.eol ? `${l.text}\n` : l.text)).join("");
}
