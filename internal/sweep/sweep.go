// Package sweep kills everything one piece of work started: a shell call's
// command or an MCP server, with whatever they spawned. The work's
// processes are found in the process table by their process group, by a
// marker in their environment that every descendant inherits (so a job
// that left the group with setsid is still found), and by parent links.
// scv becomes the child subreaper of what it starts, so the orphans it
// kills are re-parented to it and reaped rather than left as zombies.
package sweep

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
)

// NewMarker returns a fresh "name=<random>" environment entry. Give it to
// the work's first process; Tree finds every process that inherited it.
func NewMarker(name string) (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("mark the processes: %w", err)
	}
	return name + "=" + hex.EncodeToString(b[:]), nil
}
