// Package turnchanges shows a turn's changed files in a terminal: what
// `scv exec`, `scv attach` and `scv sessions export` print of
// scv/turn/changes.
package turnchanges

import (
	"fmt"
	"strings"

	"scv/internal/termsafe"
	"scv/runtime/session"
)

// Text is one line per changed file and how to undo the turn, then the
// session's too-large notice when it has one; "" when there is neither.
func Text(sessionID string, c session.TurnChanges) string {
	var b strings.Builder
	if len(c.Files) > 0 {
		fmt.Fprintf(&b, "changed %d file(s):\n", len(c.Files))
		for _, f := range c.Files {
			fmt.Fprintf(&b, "  %s  %s\n", termsafe.Line(f.Path), Stat(f))
		}
		fmt.Fprintf(&b, "  undo: scv undo %s %s\n", termsafe.Line(sessionID), termsafe.Line(c.TurnID))
	}
	if c.Notice != "" {
		fmt.Fprintf(&b, "note: %s\n", termsafe.Line(c.Notice))
	}
	return b.String()
}

// Stat is a file's lines added and removed, or that it is binary.
func Stat(f session.FileStat) string {
	if f.Binary {
		return "binary"
	}
	return fmt.Sprintf("+%d −%d", f.Added, f.Removed)
}
