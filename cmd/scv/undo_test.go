package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"scv/internal/fakeopenai"
	"scv/runtime/provider"
)

// undoFiles is how many files the kill -9 test's turn changes: enough that
// the revert is still running when its first file is back.
const undoFiles = 300

// scv exec prints the files a turn changed; scv undo, killed with SIGKILL
// after its first restored file, leaves every file whole (old or
// restored), and run again finishes the revert; a third run finds nothing
// left to undo.
func TestExecPrintsChangesAndUndoSurvivesKill9(t *testing.T) {
	srv := fakeopenai.New(t)
	home := fakeHome(t, srv)
	appendConfig(t, home, "[agent]\napproval_policy = \"auto\"\n")
	work, _ := filepath.EvalSymlinks(t.TempDir())
	name := func(i int) string { return filepath.Join(work, fmt.Sprintf("f%03d.txt", i)) }
	before := strings.Repeat("before\n", 2000)
	for i := range undoFiles {
		os.WriteFile(name(i), []byte(before), 0o644)
	}
	srv.Enqueue(
		fakeopenai.Reply{ToolCalls: []provider.ToolCall{{ID: "c1", Name: "shell", Arguments: `{"command":"for f in f*.txt; do echo after > $f; done"}`}}},
		fakeopenai.Reply{Chunks: []string{"Done."}},
	)
	_, stderr, code := run(t, home, work, "", "exec", "change them all")
	if code != 0 || !strings.Contains(stderr, fmt.Sprintf("changed %d file(s)", undoFiles)) || !strings.Contains(stderr, "scv undo ") {
		t.Fatalf("exec exit %d, stderr lacks the changed files:\n%s", code, stderr)
	}

	cmd := exec.Command(scvBin, "undo")
	cmd.Dir = work
	cmd.Env = []string{"SCV_HOME=" + home, "HOME=" + home, "PATH=" + os.Getenv("PATH"), "SCV_NO_DAEMON=1"}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if b, _ := os.ReadFile(name(0)); string(b) == before {
			break // the first file is back: the revert is under way
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("no file was restored:\n%s", out.String())
		}
		time.Sleep(time.Millisecond) // poll interval of the condition above
	}
	cmd.Process.Kill() // SIGKILL
	cmd.Wait()
	restored := 0
	for i := range undoFiles {
		b, _ := os.ReadFile(name(i))
		switch string(b) {
		case before:
			restored++
		case "after\n":
		default:
			t.Fatalf("%s is torn after kill -9: %d bytes", name(i), len(b))
		}
	}
	t.Logf("kill -9 stopped the revert after %d of %d files", restored, undoFiles)

	stdout, stderr, code := run(t, home, work, "", "undo")
	if code != 0 || !strings.Contains(stdout, fmt.Sprintf("%d file(s)", undoFiles)) {
		t.Fatalf("undo again: exit %d\n%s%s", code, stdout, stderr)
	}
	for i := range undoFiles {
		if b, _ := os.ReadFile(name(i)); string(b) != before {
			t.Fatalf("%s was not restored", name(i))
		}
	}
	if _, stderr, code := run(t, home, work, "", "undo"); code != 1 || !strings.Contains(stderr, "no turn") {
		t.Fatalf("a third undo: exit %d\n%s", code, stderr)
	}
}

// scv undo --force never reverts through a symlink the user put in place
// of the turn's directory: it exits 1 saying why and that the turn is not
// reverted, the file outside stays, and once the symlink is gone the same
// command reverts the turn.
func TestUndoForceSaysWhatItWillNotRevertThroughASymlink(t *testing.T) {
	srv := fakeopenai.New(t)
	home := fakeHome(t, srv)
	appendConfig(t, home, "[agent]\napproval_policy = \"auto\"\n")
	work, _ := filepath.EvalSymlinks(t.TempDir())
	outside := filepath.Join(t.TempDir(), "a.txt")
	os.WriteFile(outside, []byte("outside secret\n"), 0o644)
	os.Mkdir(filepath.Join(work, "dir"), 0o755)
	os.WriteFile(filepath.Join(work, "dir", "a.txt"), []byte("one\n"), 0o644)
	srv.Enqueue(
		fakeopenai.Reply{ToolCalls: []provider.ToolCall{{ID: "c1", Name: "write_file", Arguments: `{"path":"dir/a.txt","content":"two\n"}`}}},
		fakeopenai.Reply{Chunks: []string{"Done."}},
	)
	if _, stderr, code := run(t, home, work, "", "exec", "edit"); code != 0 {
		t.Fatalf("exec exit %d:\n%s", code, stderr)
	}
	os.Rename(filepath.Join(work, "dir"), filepath.Join(work, "mine"))
	if err := os.Symlink(filepath.Dir(outside), filepath.Join(work, "dir")); err != nil {
		t.Fatal(err)
	}

	stdout, stderr, code := run(t, home, work, "", "undo", "--force")
	if code != 1 || !strings.Contains(stderr, "is not reverted") || !strings.Contains(stderr, "dir is a symlink") || strings.Contains(stdout+stderr, "outside secret") {
		t.Fatalf("undo --force: exit %d\n%s%s", code, stdout, stderr)
	}
	if b, _ := os.ReadFile(outside); string(b) != "outside secret\n" {
		t.Errorf("the outside file = %q", b)
	}
	os.Remove(filepath.Join(work, "dir"))
	os.Rename(filepath.Join(work, "mine"), filepath.Join(work, "dir"))
	if stdout, stderr, code := run(t, home, work, "", "undo", "--force"); code != 0 || !strings.Contains(stdout, "1 file(s)") {
		t.Fatalf("undo --force once the symlink is gone: exit %d\n%s%s", code, stdout, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(work, "dir", "a.txt")); string(b) != "one\n" {
		t.Errorf("dir/a.txt = %q", b)
	}
}
