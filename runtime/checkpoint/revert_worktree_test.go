package checkpoint

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"scv/internal/fifotest"
)

// outsideDir is a directory outside the workspace holding files named as
// the workspace's, which no revert may read, write or remove.
func outsideDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func expectUntouched(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	if len(ents) != len(files) {
		t.Errorf("%s holds %d entries, want %d", dir, len(ents), len(files))
	}
	for name, content := range files {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != content {
			t.Errorf("outside file %s = %q, %v; want it untouched", name, b, err)
		}
	}
}

// swapForSymlink moves the workspace's directory dir away and puts a
// symlink to target in its place.
func (f *fixture) swapForSymlink(dir, away, target string) {
	f.t.Helper()
	if err := os.Rename(filepath.Join(f.ws, dir), filepath.Join(f.ws, away)); err != nil {
		f.t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(f.ws, dir)); err != nil {
		f.t.Fatal(err)
	}
}

func conflictOf(out Outcome, path string) (Conflict, bool) {
	for _, c := range out.Conflicts {
		if c.Path == path {
			return c, true
		}
	}
	return Conflict{}, false
}

var outsideFiles = map[string]string{"a.txt": "outside secret\n", "new.txt": "outside new\n"}

// A directory the user replaced with a symlink to elsewhere after the turn:
// the revert neither reads through it (the conflict's diff holds no
// outside text) nor, forced, writes or removes anything through it.
func TestRevertNeverReachesThroughASymlinkTheUserPutForADirectory(t *testing.T) {
	f := newFixture(t)
	outside := outsideDir(t, outsideFiles)
	f.write("dir/a.txt", "one\n")
	f.turn("t1", nil, func() { f.write("dir/a.txt", "two\n"); f.write("dir/new.txt", "made\n") })
	f.swapForSymlink("dir", "mine", outside)

	for _, force := range []bool{false, true} {
		out := f.revert(force, "t1")
		c, ok := conflictOf(out, "dir/a.txt")
		if !ok || len(out.Reverted) != 0 {
			t.Fatalf("force=%v: outcome = %+v; want dir/a.txt as a conflict and nothing reverted", force, out)
		}
		if strings.Contains(c.Diff, "outside") || !strings.Contains(c.Diff, "dir is a symlink") {
			t.Errorf("force=%v: conflict diff = %q; want the reason and no outside text", force, c.Diff)
		}
		if _, ok := conflictOf(out, "dir/new.txt"); ok {
			t.Errorf("force=%v: dir/new.txt is a conflict; the turn's file is gone", force)
		}
		expectUntouched(t, outside, outsideFiles)
	}
	if s, _ := f.read("mine/a.txt"); s != "two\n" {
		t.Errorf("mine/a.txt = %q; a refused revert wrote it", s)
	}
}

// A later turn that replaced a directory with a symlink to elsewhere is
// undone with the rest: the symlink goes first (only the link, not what
// it points at), then the directory's files come back in a directory.
func TestRevertUndoesALaterTurnsSymlinkSwapInsideTheWorkspace(t *testing.T) {
	f := newFixture(t)
	outside := outsideDir(t, outsideFiles)
	f.write("dir/a.txt", "one\n")
	f.write("dir/sub/c.txt", "see\n")
	f.turn("t1", nil, func() { f.write("dir/a.txt", "two\n"); f.write("dir/new.txt", "made\n") })
	f.turn("t2", nil, func() { f.swapForSymlink("dir", "old", outside) })

	out := f.revert(false, "t1", "t2")
	if len(out.Conflicts) != 0 {
		t.Fatalf("outcome = %+v; want no conflict", out)
	}
	expectUntouched(t, outside, outsideFiles)
	if info, err := os.Lstat(filepath.Join(f.ws, "dir")); err != nil || !info.IsDir() {
		t.Fatalf("dir = %v, %v; want a directory again", info, err)
	}
	f.expectFile("dir/a.txt", "one\n")
	f.expectFile("dir/sub/c.txt", "see\n")
	for _, p := range []string{"dir/new.txt", "old/a.txt", "old/new.txt", "old/sub/c.txt"} {
		if _, ok := f.read(p); ok {
			t.Errorf("%s is still there", p)
		}
	}
}

// A directory the user made where the turn left a file is never deleted,
// not even by a forced revert: where the turn created the file, there is
// nothing to undo; where it changed one, the revert is a conflict whose
// reason says so.
func TestForcedRevertNeverDeletesADirectoryTheUserMade(t *testing.T) {
	f := newFixture(t)
	f.write("cfg", "one\n")
	f.turn("t1", nil, func() { f.write("cfg", "two\n"); f.write("notes", "made\n") })
	for _, p := range []string{"cfg", "notes"} {
		os.Remove(filepath.Join(f.ws, p))
		f.write(p+"/mine.txt", "the user's\n")
	}

	for _, force := range []bool{false, true} {
		out := f.revert(force, "t1")
		c, ok := conflictOf(out, "cfg")
		if !ok || len(out.Conflicts) != 1 || len(out.Reverted) != 0 {
			t.Fatalf("force=%v: outcome = %+v; want cfg alone as a conflict", force, out)
		}
		if !strings.Contains(c.Diff, "cfg is a directory") {
			t.Errorf("force=%v: conflict diff = %q; want the reason", force, c.Diff)
		}
		for _, p := range []string{"cfg/mine.txt", "notes/mine.txt"} {
			if s, _ := f.read(p); s != "the user's\n" {
				t.Errorf("force=%v: %s = %q; the user's file is gone", force, p, s)
			}
		}
	}
}

// A turn that put a directory where a file was is undone: its files go,
// then the emptied directory, then the file is back.
func TestRevertPutsAFileBackWhereTheTurnMadeADirectory(t *testing.T) {
	f := newFixture(t)
	f.write("x", "file\n")
	f.turn("t1", nil, func() { os.Remove(filepath.Join(f.ws, "x")); f.write("x/y", "in a dir\n") })
	out := f.revert(false, "t1")
	if len(out.Conflicts) != 0 || len(out.Reverted) != 2 {
		t.Fatalf("outcome = %+v", out)
	}
	f.expectFile("x", "file\n")
}

// A directory the user replaced with a file after the turn is a conflict
// with its reason, plain and forced, and the file stays; a later turn
// that did the same is undone with the rest.
func TestRevertWhereADirectoryBecameAFile(t *testing.T) {
	f := newFixture(t)
	f.write("dir/a.txt", "one\n")
	f.turn("t1", nil, func() { f.write("dir/a.txt", "two\n") })
	os.RemoveAll(filepath.Join(f.ws, "dir"))
	f.write("dir", "the user's file\n")
	for _, force := range []bool{false, true} {
		out := f.revert(force, "t1")
		if c, ok := conflictOf(out, "dir/a.txt"); !ok || !strings.Contains(c.Diff, "dir is a file") {
			t.Fatalf("force=%v: outcome = %+v; want dir/a.txt as a conflict with its reason", force, out)
		}
		if s, _ := f.read("dir"); s != "the user's file\n" {
			t.Errorf("force=%v: dir = %q", force, s)
		}
	}

	os.Remove(filepath.Join(f.ws, "dir"))
	f.write("dir/a.txt", "two\n")
	f.turn("t2", nil, func() { os.RemoveAll(filepath.Join(f.ws, "dir")); f.write("dir", "the turn's file\n") })
	if out := f.revert(false, "t1", "t2"); len(out.Conflicts) != 0 {
		t.Fatalf("outcome = %+v", out)
	}
	f.expectFile("dir/a.txt", "one\n")
}

// A file the user replaced with a named pipe is never opened (a reader
// would wait for a writer forever): the plain revert reports it as a
// conflict saying what is there, the forced one replaces the pipe.
func TestRevertNeverOpensANamedPipe(t *testing.T) {
	f := newFixture(t)
	f.write("a.txt", "one\n")
	f.write("b.txt", "bee\n")
	f.turn("t1", nil, func() { f.write("a.txt", "two\n"); f.write("b.txt", "bee2\n") })
	os.Remove(filepath.Join(f.ws, "a.txt"))
	pipe := fifotest.Make(t, filepath.Join(f.ws, "a.txt"))

	out := f.revert(false, "t1")
	if pipe.Opened() {
		t.Fatal("the revert opened the named pipe")
	}
	if c, ok := conflictOf(out, "a.txt"); !ok || len(out.Reverted) != 0 || !strings.Contains(c.Diff, "a.txt is a named pipe") {
		t.Fatalf("outcome = %+v; want a.txt as a conflict saying what it is", out)
	}
	out = f.revert(true, "t1")
	if pipe.Opened() {
		t.Fatal("the forced revert opened the named pipe")
	}
	if len(out.Conflicts) != 0 || len(out.Reverted) != 2 {
		t.Fatalf("forced outcome = %+v", out)
	}
	f.expectFile("a.txt", "one\n")
}

// Whether a turn's change is late is judged inside the workspace: for a
// directory the turn swapped for a symlink to elsewhere, by the symlink,
// never by a file beyond it that something outside changed after the
// turn's tools (which made the turn's change a conflict).
func TestLateChangesAreJudgedInsideTheWorkspace(t *testing.T) {
	f := newFixture(t)
	outside := outsideDir(t, outsideFiles)
	f.write("dir/a.txt", "one\n")
	tt, err := f.repo.Begin(t.Context(), "t1", true)
	if err != nil {
		t.Fatal(err)
	}
	f.swapForSymlink("dir", "old", outside)
	tt.ToolDone()
	for { // the file clock may run a tick behind time.Now
		os.WriteFile(filepath.Join(outside, "a.txt"), []byte("outside secret\n"), 0o644)
		if info, err := os.Lstat(filepath.Join(outside, "a.txt")); err != nil || changeTime(info).After(tt.toolsDone) {
			break
		}
	}
	if _, err := tt.Finish(t.Context()); err != nil {
		t.Fatal(err)
	}
	if out := f.revert(false, "t1"); len(out.Conflicts) != 0 {
		t.Fatalf("outcome = %+v; want no conflict", out)
	}
	expectUntouched(t, outside, outsideFiles)
	f.expectFile("dir/a.txt", "one\n")
}

// A directory swapped for a symlink to elsewhere while the revert writes
// (after its check): the file under it is a conflict saying why, nothing
// is written through the symlink, and the other files are restored.
func TestAFileThatCannotBeWrittenMidRevertIsAConflictAndTheRestGoOn(t *testing.T) {
	f := newFixture(t)
	outside := outsideDir(t, outsideFiles)
	f.write("a.txt", "one\n")
	f.write("dir/a.txt", "one\n")
	f.write("z/a.txt", "one\n")
	f.turn("t1", nil, func() {
		for _, p := range []string{"a.txt", "dir/a.txt", "z/a.txt"} {
			f.write(p, "two\n")
		}
	})
	out := f.revertCalling(func(path string) {
		if path == "a.txt" {
			f.swapForSymlink("dir", "mine", outside)
		}
	}, false, "t1")
	if c, ok := conflictOf(out, "dir/a.txt"); !ok || len(out.Conflicts) != 1 || !strings.Contains(c.Diff, "dir is a symlink") {
		t.Fatalf("outcome = %+v; want dir/a.txt alone as a conflict with its reason", out)
	}
	if len(out.Reverted) != 2 {
		t.Errorf("reverted %v; want a.txt and z/a.txt", out.Reverted)
	}
	expectUntouched(t, outside, outsideFiles)
	f.expectFile("z/a.txt", "one\n")
}

// A file whose name is as long as the file system allows (255 bytes) is
// restored: the temporary file written beside it must fit too.
func TestRevertAFileWithTheLongestName(t *testing.T) {
	f := newFixture(t)
	name := "dir/" + strings.Repeat("n", 251) + ".txt"
	f.write(name, "one\n")
	f.turn("t1", nil, func() { f.write(name, "two\n") })
	if out := f.revert(false, "t1"); len(out.Reverted) != 1 || len(out.Conflicts) != 0 {
		t.Fatalf("revert = %+v", out)
	}
	if s, _ := f.read(name); s != "one\n" {
		t.Fatalf("%s = %q", name, s)
	}
	if ents, _ := os.ReadDir(filepath.Join(f.ws, "dir")); len(ents) != 1 {
		t.Fatalf("dir holds %v; want the file alone", ents)
	}
}

// A file tool's path that a later command of the turn put beyond a
// symlink (a package manager replacing a directory with a link, as pnpm
// does) is no file at the turn's end, as git sees it: the turn's other
// changes are still kept, and its undo puts the directory back. The same
// for a file the user's repository tracks there.
func TestAPathPutBeyondASymlinkMidTurnKeepsTheTurnsChanges(t *testing.T) {
	f := newFixture(t)
	f.write(".gitignore", "d/\n")
	f.write("d/a.txt", "one\n")
	f.write("d/tracked.txt", "tracked\n")
	f.write("e/a.txt", "elsewhere\n")
	f.write("e/tracked.txt", "elsewhere\n")
	f.write("b.txt", "b\n")
	userGit(t, f.ws, "init", "-q")
	userGit(t, f.ws, "add", "-f", "d/tracked.txt")
	changes := f.turn("t1", []string{"d/a.txt"}, func() {
		f.write("d/a.txt", "two\n")
		f.write("b.txt", "changed\n")
		f.swapForSymlink("d", "d.away", "e")
	})
	got := map[string]bool{}
	for _, c := range changes {
		got[c.Path] = true
	}
	if !got["b.txt"] || !got["d/a.txt"] || !got["d/tracked.txt"] {
		t.Fatalf("changes = %+v", changes)
	}
	if out := f.revert(false, "t1"); len(out.Conflicts) != 0 {
		t.Fatalf("revert = %+v", out)
	}
	for path, want := range map[string]string{"b.txt": "b\n", "d/a.txt": "one\n", "d/tracked.txt": "tracked\n", "e/a.txt": "elsewhere\n"} {
		if s, _ := f.read(path); s != want {
			t.Errorf("%s = %q; want %q", path, s, want)
		}
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
