package termsafe

import "unicode/utf8"

// Stream escapes text that arrives in pieces (a model's streamed answer)
// exactly as Escape escapes the whole. What a piece ends with that the next
// piece could change is held back until then or until Flush: a CR that may
// start a CRLF, and the first bytes of a UTF-8 sequence. Escape sequences
// need no such care: their ESC is escaped wherever it falls, so a sequence
// split across pieces is as inert as a whole one. The zero Stream is ready.
type Stream struct {
	held string
}

// Write returns the safe text of piece, to print now.
func (s *Stream) Write(piece string) string {
	text := s.held + piece
	cut := holdFrom(text)
	s.held = text[cut:]
	return Escape(text[:cut])
}

// Flush returns what Write held back, escaped; call it when the text ends.
func (s *Stream) Flush() string {
	out := Escape(s.held)
	s.held = ""
	return out
}

// holdFrom returns where the tail that the next piece could change starts.
func holdFrom(text string) int {
	n := len(text)
	if n > 0 && text[n-1] == '\r' {
		return n - 1
	}
	for i := n - 1; i >= 0 && i >= n-utf8.UTFMax+1; i-- {
		if !utf8.RuneStart(text[i]) {
			continue
		}
		if text[i] >= 0xc0 && !utf8.FullRuneInString(text[i:]) {
			return i
		}
		break
	}
	return n
}
