package checkpoint

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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

// scv run in the home directory has its own checkpoints inside the
// workspace (~/.scv/checkpoints): a model allowed only to write files
// rewrites the shadow repository's info/attributes and config to name a
// clean filter. No later snapshot runs it.
func TestAWorkspaceHoldingTheCheckpointsCannotMakeThemRunAFilter(t *testing.T) {
	ws := t.TempDir()
	root := NewRoot(filepath.Join(ws, ".scv", "checkpoints"), 0)
	repo, err := root.Open(context.Background(), "s1", ws)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t, ws, root, repo}
	marker := filepath.Join(t.TempDir(), "ran")
	f.write("a.txt", "one\n")
	gitDir := filepath.Join(".scv", "checkpoints", "s1", gitDirName)
	for _, attrs := range []func(path string){
		func(path string) { f.write(path, "* filter=evil\n") },
		func(path string) { // a named pipe would hold the snapshot too
			os.Remove(filepath.Join(ws, path))
			if err := syscall.Mkfifo(filepath.Join(ws, path), 0o600); err != nil {
				t.Fatal(err)
			}
		},
	} {
		f.turn("t1", nil, func() {
			attrs(filepath.Join(gitDir, "info", "attributes"))
			config, _ := os.ReadFile(filepath.Join(ws, gitDir, "config"))
			f.write(filepath.Join(gitDir, "config"), string(config)+"[filter \"evil\"]\n\tclean = "+trap(marker)+"\n")
		})
		f.turn("t2", nil, func() { f.write("a.txt", "two\n") })
		assertNotRun(t, marker)
	}
}

// scv run in the home directory: scv's own home (the checkpoints, the
// session logs) is inside the workspace but never in a snapshot, so a
// turn's changes are the user's files only and its undo never rewrites
// the checkpoints it reads from, not even a path a file tool wrote there.
func TestScvsHomeInsideTheWorkspaceIsNeverSnapshotted(t *testing.T) {
	ws := t.TempDir()
	home := filepath.Join(ws, ".scv")
	root := NewRoot(filepath.Join(home, "checkpoints"), 0).KeepOut(home)
	repo, err := root.Open(context.Background(), "s1", ws)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t, ws, root, repo}
	f.write("a.txt", "one\n")
	f.write(".scv/sessions/s1.jsonl", "{}\n")
	f.turn("t1", nil, func() { f.write("a.txt", "two\n") })
	changes := f.turn("t2", []string{".scv/sessions/s1.jsonl"}, func() {
		f.write("a.txt", "three\n")
		f.write(".scv/sessions/s1.jsonl", "{}\n{}\n")
	})
	if len(changes) != 1 || changes[0].Path != "a.txt" {
		t.Fatalf("%d changes (%.200v); want a.txt alone", len(changes), changes)
	}
	if out := f.revert(false, "t1", "t2"); len(out.Reverted) != 1 || len(out.Conflicts) != 0 {
		t.Fatalf("revert = %.300v", out)
	}
	if s, _ := f.read("a.txt"); s != "one\n" {
		t.Errorf("a.txt = %q", s)
	}
	if s, _ := f.read(".scv/sessions/s1.jsonl"); s != "{}\n{}\n" {
		t.Errorf("the session log = %q", s)
	}
}

// A file a revert finds changed may be huge (a sparse file a command made
// in a moment): the revert hashes it as it reads, and a conflict says its
// size instead of holding its bytes, so the server's memory does not grow
// with it.
func TestARevertNeverHoldsAHugeFileInMemory(t *testing.T) {
	f := newFixture(t)
	f.write("a.txt", "one\n")
	f.turn("t1", nil, func() { f.write("a.txt", "two\n") })
	const size = 256 << 20
	if err := os.Truncate(filepath.Join(f.ws, "a.txt"), size); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out := f.revert(false, "t1")
	runtime.ReadMemStats(&after)
	if c, ok := conflictOf(out, "a.txt"); !ok || !strings.Contains(c.Diff, "268435456 bytes") {
		t.Fatalf("revert = %.400v; want a conflict saying the file's size", out)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > size/4 {
		t.Fatalf("the revert allocated %d bytes for a %d-byte file", grew, size)
	}
}
