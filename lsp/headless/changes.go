package headless

import (
	"fmt"
	"strings"

	"scv/internal/termsafe"
	"scv/runtime/session"
)

// ChangedFiles is what a terminal shows of a turn's changes: one line per
// file and how to undo the turn.
func ChangedFiles(sessionID string, c session.TurnChanges) string {
	var b strings.Builder
	if len(c.Files) > 0 {
		fmt.Fprintf(&b, "changed %d file(s):\n", len(c.Files))
		for _, f := range c.Files {
			stat := fmt.Sprintf("+%d -%d", f.Added, f.Removed)
			if f.Binary {
				stat = "binary"
			}
			fmt.Fprintf(&b, "  %s  %s\n", termsafe.Line(f.Path), stat)
		}
		fmt.Fprintf(&b, "  undo: scv undo %s %s\n", sessionID, c.TurnID)
	}
	if c.Notice != "" {
		fmt.Fprintf(&b, "note: %s\n", termsafe.Line(c.Notice))
	}
	return b.String()
}
