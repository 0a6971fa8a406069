// Text from the model, tools and the server is shown with its control,
// bidi and invisible characters escaped, the way scv's terminal commands
// show it (Go's internal/termsafe): a bidi override could reorder an
// approval's command on screen, a zero-width character hide a difference,
// a carriage return split what looks like one line. Escaped Go style
// (\x1b, \r, \u202e) so that the user sees something odd is there.

// C0 and C1 controls and DEL (newline and tab aside, handled below), format
// characters (bidi, zero-width, BOM, soft hyphen, tags), line and paragraph
// separators, lone surrogates, and characters that render as nothing.
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\u034f\u115f\u1160\u3164\uffa0\u{e0100}-\u{e01ef}]/gu;

export function revealHidden(text: string): string {
  return text.replace(HIDDEN, (c: string, at: number) => {
    if (c === "\n" || c === "\t") return c;
    if (c === "\r") return text[at + 1] === "\n" ? "" : "\\r";
    const code = c.codePointAt(0) ?? 0;
    if (code < 0x80) return "\\x" + code.toString(16).padStart(2, "0");
    if (code > 0xffff) return "\\U" + code.toString(16).padStart(8, "0");
    return "\\u" + code.toString(16).padStart(4, "0");
  });
}
