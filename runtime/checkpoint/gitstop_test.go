package checkpoint

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// alive reports whether process pid is there and not a zombie.
func alive(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	s := string(stat)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) > 0 && fields[0] != "Z"
}

// A git stopped at its bound is stopped with every process it started:
// here a git (a wrapper on PATH) that starts a helper before it runs, as
// git starts its own helpers; the helper must not live on.
func TestAGitStoppedAtItsBoundTakesItsChildrenWithIt(t *testing.T) {
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	bin, pids := t.TempDir(), filepath.Join(t.TempDir(), "pids")
	wrapper := "#!/bin/sh\nsleep 1000 </dev/null >/dev/null 2>&1 &\necho $! >> " + pids + "\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	f := newFixture(t)
	f.repo.g.maxWait = time.Second // the default is minutes
	f.write("a.txt", "one\n")
	if err := syscall.Mkfifo(filepath.Join(f.ws, ".gitignore"), 0o600); err != nil {
		t.Fatal(err)
	}
	if tree, err := f.repo.Snapshot(context.Background()); tree != "" || err == nil {
		t.Fatalf("snapshot = %q, %v; want it stopped at its bound", tree, err)
	}
	b, err := os.ReadFile(pids)
	if err != nil {
		t.Fatal(err)
	}
	helpers := strings.Fields(string(b))
	t.Cleanup(func() { // the helpers of the gits that ended on their own
		for _, h := range helpers {
			if pid, err := strconv.Atoi(h); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	last, _ := strconv.Atoi(helpers[len(helpers)-1]) // the helper of the git that hung
	// SIGKILL was sent before Snapshot returned; the helper is gone once
	// the kernel delivered it.
	for deadline := time.Now().Add(10 * time.Second); alive(last); {
		if time.Now().After(deadline) {
			t.Fatalf("helper %d of the stopped git still runs", last)
		}
		time.Sleep(time.Millisecond)
	}
}

// A git stopped at its bound leaves no lock behind: once the named pipe
// that held it is gone, the session's next snapshot succeeds.
func TestASnapshotAfterAGitStoppedAtItsBoundSucceeds(t *testing.T) {
	f := newFixture(t)
	f.repo.g.maxWait = time.Second // the default is minutes
	f.write("a.txt", "one\n")
	fifo := filepath.Join(f.ws, ".gitignore")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if tree, err := f.repo.Snapshot(context.Background()); tree != "" || err == nil {
		t.Fatalf("snapshot = %q, %v; want it stopped at its bound", tree, err)
	}
	if err := os.Remove(fifo); err != nil {
		t.Fatal(err)
	}
	if tree, err := f.repo.Snapshot(context.Background()); tree == "" || err != nil {
		t.Fatalf("the snapshot after = %q, %v", tree, err)
	}
}
