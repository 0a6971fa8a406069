package tools

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"
)

const (
	// sniffBytes is how much of a file is inspected to tell text from binary.
	sniffBytes = 8 << 10
	// maxSuspectPercent is the share of invalid UTF-8 or control bytes above
	// which a file without NUL bytes still counts as binary. Below it the
	// file is treated as text in a legacy encoding and the bad bytes are
	// shown as U+FFFD.
	maxSuspectPercent = 30
)

// errBinary marks files refused because they are not text.
var errBinary = errors.New("binary file")

// looksBinary reports whether a file prefix is binary: a NUL byte, or too
// many bytes that are neither valid UTF-8 nor ordinary text controls.
func looksBinary(prefix []byte) bool {
	if len(prefix) == 0 {
		return false
	}
	suspect := 0
	for i := 0; i < len(prefix); {
		c := prefix[i]
		if c == 0 {
			return true
		}
		if c < utf8.RuneSelf {
			if c < 0x20 && !strings.ContainsRune("\t\n\r\f\v\b\x1b", rune(c)) || c == 0x7f {
				suspect++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(prefix[i:])
		if r == utf8.RuneError && size <= 1 {
			// A rune cut by the end of the prefix is not evidence.
			if len(prefix)-i < utf8.UTFMax && !utf8.FullRune(prefix[i:]) {
				break
			}
			suspect++
		}
		i += size
	}
	return suspect*100 > len(prefix)*maxSuspectPercent
}

// sniffFile reads the start of an open file, decides whether it is binary
// and rewinds it.
func sniffFile(f *os.File) error {
	buf := make([]byte, sniffBytes)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return err
	}
	if looksBinary(buf[:n]) {
		return errBinary
	}
	_, err = f.Seek(0, io.SeekStart)
	return err
}

// validUTF8 makes s safe to put in a JSON event.
func validUTF8(s string) string {
	return strings.ToValidUTF8(s, "\uFFFD")
}

// cutUTF8 shortens s to at most n bytes without splitting a rune.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// capBuffer keeps the first max bytes written to it and counts the rest,
// so a producer can be drained to the end without holding its output.
type capBuffer struct {
	max       int
	buf       []byte
	truncated bool
}

func (b *capBuffer) Write(p []byte) (int, error) {
	room := b.max - len(b.buf)
	if room >= len(p) {
		b.buf = append(b.buf, p...)
		return len(p), nil
	}
	if room > 0 {
		b.buf = append(b.buf, p[:room]...)
	}
	b.truncated = true
	return len(p), nil
}

// lineWriter accumulates output lines up to a byte budget.
type lineWriter struct {
	max       int
	sb        strings.Builder
	truncated bool
}

// add appends one line; it returns false once the budget is spent.
func (w *lineWriter) add(line string) bool {
	if w.truncated {
		return false
	}
	if w.sb.Len()+len(line)+1 > w.max {
		w.truncated = true
		return false
	}
	w.sb.WriteString(line)
	w.sb.WriteByte('\n')
	return true
}

func (w *lineWriter) String() string { return w.sb.String() }

// plural counts things in English: "1 line", "2 lines", "3 matches".
func plural(n int, word string) string {
	switch {
	case n == 1:
		return "1 " + word
	case strings.HasSuffix(word, "ch"):
		return fmt.Sprintf("%d %ses", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
