package checkpoint

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

type fixture struct {
	t    *testing.T
	ws   string
	root *Root
	repo *Repo
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ws := t.TempDir()
	root := NewRoot(filepath.Join(t.TempDir(), "checkpoints"), 0)
	repo, err := root.Open(context.Background(), "s1", ws)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t, ws, root, repo}
}

func (f *fixture) write(path, content string) {
	f.t.Helper()
	abs := filepath.Join(f.ws, path)
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) read(path string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(f.ws, path))
	return string(b), err == nil
}

// turn runs change between a turn's checkpoint and its end.
func (f *fixture) turn(id string, touched []string, change func()) []Change {
	f.t.Helper()
	ctx := context.Background()
	tt, err := f.repo.Begin(ctx, id, true)
	if err != nil {
		f.t.Fatal(err)
	}
	for _, p := range touched {
		if err := tt.Touch(ctx, p); err != nil {
			f.t.Fatal(err)
		}
	}
	change()
	tt.ToolDone() // the changes were the turn's tools'
	changes, err := tt.Finish(ctx)
	if err != nil {
		f.t.Fatal(err)
	}
	return changes
}

// expectFile fails the test unless the workspace's file path holds want.
func (f *fixture) expectFile(path, want string) {
	f.t.Helper()
	if s, _ := f.read(path); s != want {
		f.t.Errorf("%s = %q, want %q", path, s, want)
	}
}

func (f *fixture) revert(force bool, ids ...string) Outcome {
	f.t.Helper()
	return f.revertCalling(nil, force, ids...)
}

// revertCalling reverts the turns ids, calling afterFile after each file
// the revert writes (nil: nothing).
func (f *fixture) revertCalling(afterFile func(path string), force bool, ids ...string) Outcome {
	f.t.Helper()
	targets, err := f.repo.Plan(context.Background(), ids)
	if err != nil {
		f.t.Fatal(err)
	}
	out, err := f.repo.Revert(context.Background(), targets, force, afterFile)
	if err != nil {
		f.t.Fatalf("force=%v: revert failed: %v", force, err)
	}
	return out
}

func TestRevertEditCreateDeleteAcrossThreeTurns(t *testing.T) {
	f := newFixture(t)
	f.write("a.txt", "one\n")
	f.write("gone.txt", "keep me\n")
	f.write("untouched.txt", "same\n")
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	os.Chtimes(filepath.Join(f.ws, "untouched.txt"), old, old)

	if c := f.turn("t1", []string{"a.txt"}, func() { f.write("a.txt", "two\n") }); len(c) != 1 || c[0].Added != 1 || c[0].Removed != 1 {
		t.Fatalf("t1 changes = %+v", c)
	}
	f.turn("t2", []string{"new/b.txt"}, func() { f.write("new/b.txt", "created\n") })
	f.turn("t3", nil, func() { os.Remove(filepath.Join(f.ws, "gone.txt")) }) // as a shell rm would

	out := f.revert(false, "t1", "t2", "t3")
	if len(out.Conflicts) != 0 || len(out.Reverted) != 3 {
		t.Fatalf("outcome = %+v", out)
	}
	f.expectFile("a.txt", "one\n")
	if _, ok := f.read("new/b.txt"); ok {
		t.Error("the created file is still there")
	}
	f.expectFile("gone.txt", "keep me\n")
	info, _ := os.Stat(filepath.Join(f.ws, "untouched.txt"))
	if !info.ModTime().Equal(old) {
		t.Errorf("untouched.txt mtime changed: %v, was %v", info.ModTime(), old)
	}
}

func TestRevertConflictRefusedThenForced(t *testing.T) {
	f := newFixture(t)
	f.write("a.txt", "one\n")
	f.write("b.txt", "bee\n")
	f.turn("t1", nil, func() { f.write("a.txt", "two\n"); f.write("b.txt", "bee2\n") })
	f.write("a.txt", "user\n")

	out := f.revert(false, "t1")
	if len(out.Conflicts) != 1 || out.Conflicts[0].Path != "a.txt" || len(out.Reverted) != 0 {
		t.Fatalf("outcome = %+v", out)
	}
	if !bytes.Contains([]byte(out.Conflicts[0].Diff), []byte("+user")) {
		t.Errorf("conflict diff = %q", out.Conflicts[0].Diff)
	}
	if s, _ := f.read("b.txt"); s != "bee2\n" {
		t.Errorf("a refused revert wrote b.txt: %q", s)
	}
	out = f.revert(true, "t1")
	if len(out.Conflicts) != 0 || len(out.Reverted) != 2 {
		t.Fatalf("forced outcome = %+v", out)
	}
	f.expectFile("a.txt", "one\n")
}

func TestRevertBinaryAndIgnoredFile(t *testing.T) {
	f := newFixture(t)
	f.write(".gitignore", "build/\n")
	bin := []byte{0, 1, 2, 0xff, 0, 'x'}
	os.WriteFile(filepath.Join(f.ws, "img.bin"), bin, 0o644)
	f.write("build/out.txt", "generated\n")
	changes := f.turn("t1", []string{"build/out.txt"}, func() {
		os.WriteFile(filepath.Join(f.ws, "img.bin"), []byte{9, 0, 9}, 0o644)
		f.write("build/out.txt", "edited by write_file\n")
	})
	if len(changes) != 2 {
		t.Fatalf("changes = %+v", changes)
	}
	files, _, err := f.repo.TurnChanges(context.Background(), "t1", "img.bin")
	if err != nil || len(files) != 1 || !files[0].Binary || files[0].Before != nil {
		t.Fatalf("binary changes = %+v, %v", files, err)
	}
	f.revert(false, "t1")
	if s, _ := f.read("img.bin"); s != string(bin) {
		t.Errorf("img.bin = %q", s)
	}
	if s, _ := f.read("build/out.txt"); s != "generated\n" {
		t.Errorf("ignored file = %q", s)
	}
}

// A revert stopped after its first file (as kill -9 would) leaves every
// file whole, and running it again finishes it.
func TestRevertInterruptedThenRerun(t *testing.T) {
	f := newFixture(t)
	for _, p := range []string{"a", "b", "c"} {
		f.write(p, p+"1\n")
	}
	f.turn("t1", nil, func() {
		for _, p := range []string{"a", "b", "c"} {
			f.write(p, p+"2\n")
		}
	})
	targets, _ := f.repo.Plan(context.Background(), []string{"t1"})
	stop := errStop{}
	func() {
		defer func() { _ = recover() }()
		f.repo.Revert(context.Background(), targets, false, func(string) { panic(stop) })
	}()
	restored := 0
	for _, p := range []string{"a", "b", "c"} {
		s, _ := f.read(p)
		if s != p+"1\n" && s != p+"2\n" {
			t.Fatalf("%s is torn: %q", p, s)
		}
		if s == p+"1\n" {
			restored++
		}
	}
	if restored != 1 {
		t.Fatalf("%d files restored before the stop, want 1", restored)
	}
	out := f.revert(false, "t1")
	if len(out.Conflicts) != 0 || len(out.Reverted) != 3 {
		t.Fatalf("rerun outcome = %+v", out)
	}
}

type errStop struct{}

func TestCopyGivesForkItsOwnCheckpoints(t *testing.T) {
	f := newFixture(t)
	f.write("a", "1\n")
	f.turn("t1", nil, func() { f.write("a", "2\n") })
	if err := f.root.Copy("s1", "s2"); err != nil {
		t.Fatal(err)
	}
	fork, err := f.root.Open(context.Background(), "s2", f.ws)
	if err != nil {
		t.Fatal(err)
	}
	if !fork.Has(context.Background(), "t1") {
		t.Fatal("the fork has no checkpoint of t1")
	}
	f.root.Remove("s1")
	targets, _ := fork.Plan(context.Background(), []string{"t1"})
	if out, err := fork.Revert(context.Background(), targets, false, nil); err != nil || len(out.Reverted) != 1 {
		t.Fatalf("fork revert = %+v, %v", out, err)
	}
}

// A 50 MB file is snapshotted, shown as changed and restored byte for byte.
func TestRevertA50MBFile(t *testing.T) {
	f := newFixture(t)
	big := bytes.Repeat([]byte("0123456789abcdef\n"), 50<<20/17)
	if err := os.WriteFile(filepath.Join(f.ws, "big.log"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	changes := f.turn("t1", []string{"big.log"}, func() {
		os.WriteFile(filepath.Join(f.ws, "big.log"), append(append([]byte(nil), big...), "tail\n"...), 0o644)
	})
	if len(changes) != 1 || changes[0].Added != 1 {
		t.Fatalf("changes = %+v", changes)
	}
	if out := f.revert(false, "t1"); len(out.Reverted) != 1 {
		t.Fatalf("outcome = %+v", out)
	}
	got, _ := os.ReadFile(filepath.Join(f.ws, "big.log"))
	if !bytes.Equal(got, big) {
		t.Fatalf("big.log has %d bytes, want %d", len(got), len(big))
	}
}

// Over the bound, the oldest other session's checkpoints are dropped and
// a session alone over it is told so.
func TestAccountDropsTheOldestSessionsFirst(t *testing.T) {
	ctx := context.Background()
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a"), bytes.Repeat([]byte("x"), 64<<10), 0o644)
	root := NewRoot(t.TempDir(), 1) // any content is over
	var repos []*Repo
	for _, id := range []string{"old", "new"} {
		r, err := root.Open(ctx, id, ws)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Snapshot(ctx); err != nil {
			t.Fatal(err)
		}
		repos = append(repos, r)
	}
	over, err := root.Account(repos[0], 64<<10)
	if err != nil || !over {
		t.Fatalf("over = %v, %v", over, err)
	}
	if _, err := root.Account(repos[1], 64<<10); err != nil {
		t.Fatal(err)
	}
	if root.Exists("old") || !root.Exists("new") {
		t.Fatalf("old kept %v, new kept %v; want only the newest", root.Exists("old"), root.Exists("new"))
	}
}

// The user's repository in the workspace is neither read into the
// checkpoints nor written: same refs, same index, no stash.
func TestTheUsersRepositoryIsNeverTouched(t *testing.T) {
	f := newFixture(t)
	user := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", f.ws, "-c", "user.name=u", "-c", "user.email=u@x"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	user("init", "-q")
	f.write("a.txt", "one\n")
	user("add", "a.txt")
	user("commit", "-qm", "first")
	refs := user("for-each-ref")
	index, _ := os.ReadFile(filepath.Join(f.ws, ".git", "index"))
	f.turn("t1", []string{"a.txt"}, func() { f.write("a.txt", "two\n") })
	if out := f.revert(false, "t1"); len(out.Reverted) != 1 {
		t.Fatalf("outcome = %+v", out)
	}
	entries, err := f.repo.Entries(context.Background(), mustRef(t, f.repo, "t1/before"))
	if err != nil {
		t.Fatal(err)
	}
	for p := range entries {
		if strings.HasPrefix(p, ".git/") {
			t.Errorf("the checkpoint holds the user's %s", p)
		}
	}
	if got := user("for-each-ref"); got != refs {
		t.Errorf("refs changed:\n%s\nwas\n%s", got, refs)
	}
	if got, _ := os.ReadFile(filepath.Join(f.ws, ".git", "index")); !bytes.Equal(got, index) {
		t.Error("the user's index was written")
	}
	if st := user("stash", "list"); st != "" {
		t.Errorf("stash = %q", st)
	}
}

func mustRef(t *testing.T, r *Repo, name string) string {
	t.Helper()
	ref, err := r.Ref(context.Background(), name)
	if err != nil || ref == "" {
		t.Fatalf("ref %s = %q, %v", name, ref, err)
	}
	return ref
}

// A turn that changes more files than fit on a command line reverts.
func TestRevertManyFiles(t *testing.T) {
	f := newFixture(t)
	n := maxPathArgs + 200
	f.turn("t1", nil, func() {
		for i := range n {
			f.write(fmt.Sprintf("dep/m%05d.js", i), "x\n")
		}
	})
	if out := f.revert(false, "t1"); len(out.Reverted) != n {
		t.Fatalf("reverted %d of %d", len(out.Reverted), n)
	}
	if _, ok := f.read("dep/m00000.js"); ok {
		t.Error("a created file is still there")
	}
}

// A process killed while git updated the index leaves index.lock behind:
// the next process that opens the session's checkpoints clears it, and a
// snapshot that cannot update the index fails rather than return an older
// snapshot's tree.
func TestAStaleIndexLockOfAKilledProcessIsCleared(t *testing.T) {
	f := newFixture(t)
	f.write("a.txt", "one\n")
	f.turn("t1", nil, func() { f.write("a.txt", "two\n") })
	lock := filepath.Join(f.repo.g.gitDir, "index.lock")
	if err := os.WriteFile(lock, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if tree, err := f.repo.Snapshot(context.Background()); tree != "" || err == nil {
		t.Fatalf("a snapshot with the index locked = %q, %v; want an error", tree, err)
	}
	repo, err := f.root.Open(context.Background(), "s1", f.ws) // the next process
	if err != nil {
		t.Fatal(err)
	}
	f.repo = repo
	if changes := f.turn("t2", nil, func() { f.write("a.txt", "three\n") }); len(changes) != 1 || changes[0].Path != "a.txt" {
		t.Fatalf("changes after the lock = %+v", changes)
	}
}
