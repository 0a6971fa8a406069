package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"scv/internal/fifotest"
)

// outsideFiles are files outside the workspace named as the workspace's,
// which no revert may read, write or remove.
var outsideFiles = map[string]string{"a.txt": "outside secret\n", "new.txt": "outside new\n"}

func makeOutside(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range outsideFiles {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func expectOutsideUntouched(t *testing.T, dir string) {
	t.Helper()
	if ents, _ := os.ReadDir(dir); len(ents) != len(outsideFiles) {
		t.Errorf("%s holds %d entries, want %d", dir, len(ents), len(outsideFiles))
	}
	for name, content := range outsideFiles {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != content {
			t.Errorf("outside %s = %q, %v; want it untouched", name, b, err)
		}
	}
}

// editInDir runs a turn writing dir/a.txt (which holds "one") and
// creating dir/new.txt, and returns its id once its changes are out.
func editInDir(t *testing.T, r *ckptRig) string {
	if err := os.Mkdir(filepath.Join(r.ws, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.put("dir/a.txt", "one\n")
	id := r.turn(1, "edit", call("c1", "write_file", map[string]any{"path": "dir/a.txt", "content": "two\n"}),
		call("c2", "write_file", map[string]any{"path": "dir/new.txt", "content": "made\n"}))
	r.rec.waitFor(t, TurnChanges{}, 1)
	return id
}

// A later turn's shell swapped the edited directory for a symlink to a
// directory outside: undoing both turns removes the link (not what it
// points at) and brings the directory back, and nothing outside changes.
func TestARevertUndoesALaterTurnsSymlinkSwapAndStaysInTheWorkspace(t *testing.T) {
	r := newCkptRig(t, "")
	outside := makeOutside(t)
	t1 := editInDir(t, r)
	r.turn(2, "swap", call("c3", "shell", map[string]any{"command": "mv dir old && ln -s " + outside + " dir"}))
	r.rec.waitFor(t, TurnChanges{}, 2)

	res, err := r.s.RevertTurn(t1, false)
	if err != nil || len(res.Conflicts) != 0 {
		t.Fatalf("revert = %+v, %v; want no conflict", res, err)
	}
	expectOutsideUntouched(t, outside)
	if s, _ := r.file("dir/a.txt"); s != "one\n" {
		t.Errorf("dir/a.txt = %q", s)
	}
	if info, err := os.Lstat(filepath.Join(r.ws, "dir")); err != nil || !info.IsDir() {
		t.Errorf("dir = %v, %v; want a directory", info, err)
	}
}

// The user swapped the edited directory for a symlink to outside after
// the turn: even a forced revert reports it as a conflict saying why,
// shows no outside text and writes nothing; the turn stays revertable and
// reverts once the symlink is gone.
func TestAForcedRevertDoesNotWriteThroughTheUsersSymlink(t *testing.T) {
	r := newCkptRig(t, "")
	outside := makeOutside(t)
	t1 := editInDir(t, r)
	os.Rename(filepath.Join(r.ws, "dir"), filepath.Join(r.ws, "mine"))
	if err := os.Symlink(outside, filepath.Join(r.ws, "dir")); err != nil {
		t.Fatal(err)
	}
	res, err := r.s.RevertTurn(t1, true)
	if err != nil || len(res.Conflicts) != 1 || len(res.Reverted) != 0 {
		t.Fatalf("forced revert = %+v, %v; want dir/a.txt alone as a conflict", res, err)
	}
	if d := res.Conflicts[0].Diff; strings.Contains(d, "outside") || !strings.Contains(d, "dir is a symlink") {
		t.Errorf("conflict diff = %q; want its reason and no outside text", d)
	}
	expectOutsideUntouched(t, outside)

	os.Remove(filepath.Join(r.ws, "dir"))
	os.Rename(filepath.Join(r.ws, "mine"), filepath.Join(r.ws, "dir"))
	if res, err := r.s.RevertTurn(t1, false); err != nil || len(res.Conflicts) != 0 {
		t.Fatalf("revert once the symlink is gone = %+v, %v", res, err)
	}
	if s, _ := r.file("dir/a.txt"); s != "one\n" {
		t.Errorf("dir/a.txt = %q", s)
	}
	r.rec.waitFor(t, TurnReverted{}, 1)
}

// The user replaced a file the turn created with a directory of their
// own: a forced revert has nothing of the turn's to remove there and
// keeps the directory and its files.
func TestAForcedRevertKeepsADirectoryTheUserMade(t *testing.T) {
	r := newCkptRig(t, "")
	t1 := r.turn(1, "make", call("c1", "write_file", map[string]any{"path": "notes", "content": "made\n"}))
	r.rec.waitFor(t, TurnChanges{}, 1)
	os.Remove(filepath.Join(r.ws, "notes"))
	os.Mkdir(filepath.Join(r.ws, "notes"), 0o755)
	r.put("notes/mine.txt", "the user's\n")

	res, err := r.s.RevertTurn(t1, true)
	if err != nil || len(res.Conflicts) != 0 {
		t.Fatalf("forced revert = %+v, %v", res, err)
	}
	if s, _ := r.file("notes/mine.txt"); s != "the user's\n" {
		t.Errorf("notes/mine.txt = %q; the user's directory was deleted", s)
	}
}

// A named pipe where the turn left a file, and a file where it left a
// directory: the revert answers (each a conflict saying what is there),
// never opens the pipe, and the session's next turn runs.
func TestARevertOverANamedPipeOrAFileForADirectoryAnswersAndTheSessionGoesOn(t *testing.T) {
	r := newCkptRig(t, "")
	os.Mkdir(filepath.Join(r.ws, "dir"), 0o755)
	r.put("dir/b.txt", "one\n")
	t1 := r.turn(1, "edit", call("c1", "write_file", map[string]any{"path": "a.txt", "content": "two\n"}),
		call("c2", "write_file", map[string]any{"path": "dir/b.txt", "content": "bee\n"}))
	r.rec.waitFor(t, TurnChanges{}, 1)
	os.Remove(filepath.Join(r.ws, "a.txt"))
	pipe := fifotest.Make(t, filepath.Join(r.ws, "a.txt"))
	os.RemoveAll(filepath.Join(r.ws, "dir"))
	r.put("dir", "the user's file\n")

	res, err := r.s.RevertTurn(t1, false)
	if pipe.Opened() {
		t.Fatal("the revert opened the named pipe")
	}
	if err != nil || len(res.Conflicts) != 2 {
		t.Fatalf("revert = %+v, %v; want a.txt and dir/b.txt as conflicts", res, err)
	}
	for i, want := range []string{"a.txt is a named pipe", "dir is a file"} {
		if !strings.Contains(res.Conflicts[i].Diff, want) {
			t.Errorf("conflict %s: diff = %q; want %q", res.Conflicts[i].Path, res.Conflicts[i].Diff, want)
		}
	}
	r.turn(2, "next")
	if s, _ := r.file("dir"); s != "the user's file\n" {
		t.Errorf("dir = %q", s)
	}
}
