package session

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"scv/internal/procfs"
)

// gitChildren lists the pids of the git processes this test process
// started in workspace ws that are still there.
func gitChildren(t *testing.T, ws string) []int {
	t.Helper()
	var pids []int
	for _, p := range procfs.Scan() {
		if p.Comm != "git" || p.PPID != os.Getpid() || p.Zombie {
			continue
		}
		if cwd, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(p.PID), "cwd")); err == nil && cwd == ws {
			pids = append(pids, p.PID)
		}
	}
	return pids
}

// hangSnapshot runs a turn whose shell command leaves a named pipe called
// .gitignore, so the turn's after snapshot waits in git's open of it, and
// returns once that git is waiting. The pipe is opened for writing at the
// test's end, which lets any git still waiting go.
func hangSnapshot(t *testing.T, r *ckptRig) {
	t.Helper()
	fifo := filepath.Join(r.ws, ".gitignore")
	t.Cleanup(func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	r.turn(1, "make a pipe", call("c1", "shell", map[string]any{"command": "mkfifo .gitignore"}))
	for len(gitChildren(t, r.ws)) == 0 {
		time.Sleep(time.Millisecond) // polling a condition: the git has started
	}
}

// A git that hangs in a turn's after snapshot is stopped when the process
// shuts down: it is not left behind, waiting for ever, once scv exited.
func TestShutdownStopsACheckpointGitThatHangs(t *testing.T) {
	r := newCkptRig(t, "")
	hangSnapshot(t, r)
	r.m.Shutdown()
	if left := gitChildren(t, r.ws); len(left) > 0 {
		t.Fatalf("git processes %v are still running after Shutdown returned", left)
	}
	r.rec.waitFor(t, TurnChanges{}, 1) // the changes still go out, empty
}

// A session closed while its last turn's after snapshot hangs in git
// closes once checkpointCloseGrace passed, with that git stopped, rather
// than hold its log open until MaxGitWait.
func TestClosingStopsACheckpointGitThatHangs(t *testing.T) {
	r := newCkptRig(t, "")
	hangSnapshot(t, r)
	if err := r.m.Close(r.s.ID()); err != nil {
		t.Fatal(err)
	}
	r.rec.waitFor(t, SessionClosed{}, 1)
	if left := gitChildren(t, r.ws); len(left) > 0 {
		t.Fatalf("git processes %v are still running after the session closed", left)
	}
	r.rec.waitFor(t, TurnChanges{}, 1)
}

// syncBuffer is a log sink safe for the session's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// A turn whose checkpoint had to leave files out (here: the user's index,
// which says which ignored files the user tracks, cannot be read) still
// keeps the rest, and the server log says what was left out: a shell
// change to those files cannot be undone, and someone must be able to
// learn why.
func TestACheckpointThatLeftFilesOutSaysSoInTheLog(t *testing.T) {
	r := newCkptRig(t, "")
	var log syncBuffer
	r.s.log = slog.New(slog.NewTextHandler(&log, nil))
	if err := os.MkdirAll(filepath.Join(r.ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.ws, ".git", "index"), []byte("not an index"), 0o600); err != nil {
		t.Fatal(err)
	}
	r.turn(1, "write", call("c1", "shell", map[string]any{"command": "echo two > a.txt"}))
	changes := r.rec.waitFor(t, TurnChanges{}, 1)
	if files, _ := changes["files"].([]any); len(files) != 1 {
		t.Fatalf("changes = %v; want a.txt", changes)
	}
	if !strings.Contains(log.String(), "read the files your repository tracks") {
		t.Fatalf("the log does not say what the checkpoint left out:\n%s", log.String())
	}
}

// scv run in the home directory: its home (session logs, checkpoints) is
// inside the workspace, and a turn's changes are still only the user's
// files, so its undo never rewrites what scv itself keeps.
func TestScvsHomeInTheWorkspaceIsNotATurnsChange(t *testing.T) {
	ws := t.TempDir()
	r := newCkptRigAt(t, filepath.Join(ws, ".scv"), ws, "")
	r.put("a.txt", "one\n")
	r.turn(1, "first", call("c1", "shell", map[string]any{"command": "echo two > a.txt"}))
	r.turn(2, "second", call("c2", "shell", map[string]any{"command": "echo three > a.txt"}))
	changes := r.rec.waitFor(t, TurnChanges{}, 2)
	if files, _ := changes["files"].([]any); len(files) != 1 || !strings.Contains(fmt.Sprint(files[0]), "a.txt") {
		t.Fatalf("the second turn's changes = %.500v; want a.txt alone", changes["files"])
	}
}
