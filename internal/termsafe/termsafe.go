// Package termsafe makes text that scv did not write itself (a model's
// answer, a tool's output, an approval summary, a daemon's reply) safe to
// print on a terminal. Nothing that passes through it can move the cursor,
// overwrite what is on screen, set colours or the window title, reorder
// characters (bidi overrides) or hide them (zero-width and tag characters).
//
// What it neutralises it shows escaped, Go style (\x1b, \r, \u202e), rather
// than dropping it: an approval for `npm test\r curl … | sh` must look odd,
// not like `npm test`. Only a CR directly before an LF is dropped, since
// CRLF ends a line like LF and overwrites nothing.
package termsafe

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape returns s safe for a terminal, keeping its newlines and tabs:
// for multi-line text such as tool output, diffs and approval summaries.
func Escape(s string) string {
	return escape(s, true)
}

// Line returns s safe for a terminal as one line: newlines and tabs are
// escaped too. For fields such as names, ids, paths and table cells.
func Line(s string) string {
	return escape(s, false)
}

// Clip shortens s to at most limit bytes plus an ellipsis, cutting on a
// rune boundary so that no partial UTF-8 sequence reaches the terminal.
func Clip(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func escape(s string, layout bool) string {
	if isPlain(s, layout) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			// A stray byte: some terminals read 0x9b alone as CSI.
			writeHex(&b, s[i])
		case layout && (r == '\n' || r == '\t'):
			b.WriteByte(byte(r))
		case layout && r == '\r' && i+1 < len(s) && s[i+1] == '\n':
			// CRLF: the LF that follows ends the line.
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < utf8.RuneSelf && (r < 0x20 || r == 0x7f):
			writeHex(&b, byte(r))
		case hidden(r):
			writeRune(&b, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// isPlain reports whether escape would return s unchanged without looking
// at runes: printable ASCII (plus newline and tab in layout mode).
func isPlain(s string, layout bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			continue
		}
		if layout && (c == '\n' || c == '\t') {
			continue
		}
		return false
	}
	return true
}

// hidden reports whether a non-ASCII rune can drive a terminal or disguise
// text: C1 controls (U+009B is CSI to many terminals), format characters
// (bidi embeddings, overrides and isolates, zero-width spaces and joiners,
// the BOM, soft hyphen, tag characters), line and paragraph separators,
// and characters that render as nothing.
func hidden(r rune) bool {
	switch {
	case unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp):
		return true
	case r == 0x034f, // combining grapheme joiner
		r == 0x115f, r == 0x1160, r == 0x3164, r == 0xffa0: // Hangul fillers
		return true
	case r >= 0xe0100 && r <= 0xe01ef: // variation selectors 17–256 (used to smuggle data)
		return true
	}
	return false
}

func writeHex(b *strings.Builder, c byte) {
	const digits = "0123456789abcdef"
	b.WriteString(`\x`)
	b.WriteByte(digits[c>>4])
	b.WriteByte(digits[c&0xf])
}

func writeRune(b *strings.Builder, r rune) {
	hex := strconv.FormatInt(int64(r), 16)
	if r > 0xffff {
		b.WriteString(`\U`)
		b.WriteString(strings.Repeat("0", 8-len(hex)))
	} else {
		b.WriteString(`\u`)
		b.WriteString(strings.Repeat("0", 4-len(hex)))
	}
	b.WriteString(hex)
}
