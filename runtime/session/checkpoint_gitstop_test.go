package session

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// gitChildren lists the pids of the git processes this test process
// started in workspace ws that are still there.
func gitChildren(t *testing.T, ws string) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	me := strconv.Itoa(os.Getpid())
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		s := string(stat)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open {
			continue
		}
		fields := strings.Fields(s[end+1:])
		if s[open+1:end] != "git" || len(fields) < 2 || fields[1] != me || fields[0] == "Z" {
			continue
		}
		if cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd")); err == nil && cwd == ws {
			pids = append(pids, pid)
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
