package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

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
