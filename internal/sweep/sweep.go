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
	"errors"
	"fmt"
	"os/exec"
	"syscall"

	"scv/internal/procfs"
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

// Wait waits for cmd, the work's first process, started as the leader of
// its own process group with marker in its environment, and returns
// cmd.Wait's error once the work's group is killed and Tree has swept the
// rest. The group is killed while the leader is still an unreaped zombie
// where the system allows, so the group id cannot have been reused.
func Wait(cmd *exec.Cmd, marker string) error {
	pgid := cmd.Process.Pid
	zombie := procfs.WaitNoReap(pgid)
	if zombie {
		_ = KillGroup(pgid)
		Tree(marker, pgid, pgid)
	}
	err := cmd.Wait()
	if !zombie {
		_ = KillGroup(pgid)
		Tree(marker, pgid, pgid)
	}
	return err
}

// KillGroup sends SIGKILL to every process in the group led by pgid; a
// group already gone is not an error.
func KillGroup(pgid int) error {
	err := syscall.Kill(-pgid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}
