package checkpoint

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Tests of a workspace whose git settings are hostile: whatever its
// nested repositories, attributes and the user's own repository say,
// checkpoints run no program of theirs and keep the bytes on disk.

// userGit runs git in dir as the test's setup, isolated from the
// machine's config; extra -c settings come first.
func userGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=u", "-c", "user.email=u@x"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// trap names a program that leaves marker behind when git runs it.
func trap(marker string) string { return "touch " + marker + "; cat" }

func assertNotRun(t *testing.T, marker string) {
	t.Helper()
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("git ran a program the workspace's git config names")
	}
}

// A nested repository's config names a clean filter (and an fsmonitor, a
// textconv) that its .gitattributes applies to every file: no snapshot,
// diff or revert runs them, however its files change.
func TestANestedRepositorysProgramsNeverRun(t *testing.T) {
	f := newFixture(t)
	marker := filepath.Join(t.TempDir(), "ran")
	nested := filepath.Join(f.ws, "vendor", "x")
	f.write("vendor/x/a.txt", "secret\n")
	f.write("vendor/x/.gitattributes", "* filter=evil diff=evil\n")
	f.write("top.txt", "one\n")
	userGit(t, nested, "init", "-q")
	userGit(t, nested, "-c", "filter.evil.clean=cat", "add", ".")
	userGit(t, nested, "-c", "filter.evil.clean=cat", "commit", "-qm", "vendored")
	for key, value := range map[string]string{
		"filter.evil.clean": trap(marker), "filter.evil.smudge": trap(marker), "filter.evil.process": trap(marker),
		"diff.evil.textconv": trap(marker), "diff.evil.command": trap(marker), "core.fsmonitor": trap(marker),
	} {
		userGit(t, nested, "config", key, value)
	}
	f.turn("t1", nil, func() { f.write("top.txt", "two\n") })
	// The file's stat changes and its bytes do not: git would have to
	// run the filter to tell.
	f.turn("t2", nil, func() {
		f.write("vendor/x/a.txt", "secret\n")
		f.write("top.txt", "three\n")
	})
	later := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(nested, "a.txt"), later, later)
	if _, _, err := f.repo.TurnChanges(context.Background(), "t2", ""); err != nil {
		t.Fatal(err)
	}
	f.turn("t3", nil, func() { f.write("top.txt", "four\n") })
	if out := f.revert(false, "t2", "t3"); len(out.Conflicts) != 0 {
		t.Fatalf("revert = %+v", out)
	}
	assertNotRun(t, marker)
}

// A file tool that writes inside a .git directory (a model making a
// repository of its own under an edit rule) neither makes git run the
// config it writes nor costs the turn the undo of its other files.
func TestAFileToolWritingIntoAGitDirectoryKeepsTheTurnsOtherChanges(t *testing.T) {
	for _, whole := range []bool{true, false} {
		f := newFixture(t)
		marker := filepath.Join(t.TempDir(), "ran")
		f.write("a.txt", "one\n")
		ctx := context.Background()
		tt, err := f.repo.Begin(ctx, "t1", whole)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"a.txt", "x/.git/config", "x/.GIT/hooks/pre-commit"} {
			tt.Touch(ctx, p)
		}
		f.write("a.txt", "two\n")
		f.write("x/.git/config", "[core]\n\tfsmonitor = "+trap(marker)+"\n[filter \"evil\"]\n\tclean = "+trap(marker)+"\n")
		f.write("x/.git/HEAD", "ref: refs/heads/main\n")
		os.MkdirAll(filepath.Join(f.ws, "x/.git/objects"), 0o755)
		os.MkdirAll(filepath.Join(f.ws, "x/.git/refs"), 0o755)
		f.write("x/.gitattributes", "* filter=evil\n")
		f.write("x/b.txt", "b\n")
		tt.ToolDone()
		changes, err := tt.Finish(ctx)
		if err != nil {
			t.Fatalf("whole=%v: %v", whole, err)
		}
		found := false
		for _, c := range changes {
			found = found || c.Path == "a.txt"
		}
		if !found {
			t.Fatalf("whole=%v: changes = %+v", whole, changes)
		}
		if out := f.revert(true, "t1"); len(out.Conflicts) != 0 {
			t.Fatalf("whole=%v: revert = %+v", whole, out)
		}
		if got, _ := f.read("a.txt"); got != "one\n" {
			t.Errorf("whole=%v: a.txt = %q", whole, got)
		}
		assertNotRun(t, marker)
	}
}

// The workspace's .gitattributes ask for line-ending, ident and encoding
// conversions: checkpoints store the bytes on disk, so undo restores them
// exactly and a file left as the turn left it is no conflict.
func TestWorkspaceAttributesDoNotChangeTheBytesUndoRestores(t *testing.T) {
	utf16 := func(s string) string {
		b := []byte{0xff, 0xfe}
		for _, r := range s {
			b = append(b, byte(r), 0)
		}
		return string(b)
	}
	cases := []struct{ name, attrs, before, after string }{
		{"text=auto", "* text=auto\n", "a\r\nb\r\n", "a\r\nc\r\n"},
		{"eol=crlf", "*.txt text eol=crlf\n", "a\r\nb\r\n", "a\r\nc\r\n"},
		{"ident", "* ident\n", "$Id: 0123456789abcdef $\nb\n", "$Id: 0123456789abcdef $\nc\n"},
		{"working-tree-encoding", "*.txt working-tree-encoding=UTF-16\n", utf16("a\nb\n"), utf16("a\nc\n")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			f.write(".gitattributes", c.attrs)
			f.write("f.txt", c.before)
			f.turn("t1", nil, func() { f.write("f.txt", c.after) })
			out := f.revert(false, "t1")
			if len(out.Conflicts) != 0 || len(out.Reverted) != 1 {
				t.Fatalf("revert = %+v", out)
			}
			if got, _ := f.read("f.txt"); got != c.before {
				t.Fatalf("f.txt = %q, want %q", got, c.before)
			}
		})
	}
}

// A file the user's repository tracks although a .gitignore pattern
// matches it is in every snapshot, so a shell change to it is among the
// turn's changes and is undone. Learning what the user tracks runs
// nothing the user's repository config names.
func TestAFileTheUsersGitTracksIsNeverIgnored(t *testing.T) {
	f := newFixture(t)
	marker := filepath.Join(t.TempDir(), "ran")
	f.write(".gitignore", "*.env\nbuild/\n")
	f.write(".gitattributes", "* filter=evil\n")
	f.write("keep.env", "KEY=one\n")
	f.write("build/pinned.txt", "pinned\n")
	f.write("other.env", "not tracked\n")
	f.write("a.txt", "a\n")
	userGit(t, f.ws, "init", "-q")
	userGit(t, f.ws, "add", "-f", ".gitignore", ".gitattributes", "keep.env", "build/pinned.txt", "a.txt")
	userGit(t, f.ws, "commit", "-qm", "first")
	for key, value := range map[string]string{
		"filter.evil.clean": trap(marker), "filter.evil.process": trap(marker), "core.fsmonitor": trap(marker),
	} {
		userGit(t, f.ws, "config", key, value)
	}
	changes := f.turn("t1", nil, func() {
		f.write("keep.env", "KEY=two\n")
		f.write("build/pinned.txt", "changed\n")
		f.write("other.env", "changed too\n")
	})
	got := map[string]bool{}
	for _, c := range changes {
		got[c.Path] = true
	}
	if !got["keep.env"] || !got["build/pinned.txt"] || got["other.env"] || len(got) != 2 {
		t.Fatalf("changes = %+v", changes)
	}
	if out := f.revert(false, "t1"); len(out.Reverted) != 2 || len(out.Conflicts) != 0 {
		t.Fatalf("revert = %+v", out)
	}
	f.expectFile("keep.env", "KEY=one\n")
	f.expectFile("build/pinned.txt", "pinned\n")
	// Removed by one turn and made again by another, the user's index
	// unchanged between them: still kept.
	only := func(changes []Change, path string) {
		t.Helper()
		if len(changes) != 1 || changes[0].Path != path {
			t.Fatalf("changes = %+v; want %s", changes, path)
		}
	}
	only(f.turn("t2", nil, func() { os.Remove(filepath.Join(f.ws, "keep.env")) }), "keep.env")
	only(f.turn("t3", nil, func() { f.write("keep.env", "KEY=three\n") }), "keep.env")
	// A file the user starts tracking during the session.
	userGit(t, f.ws, "-c", "filter.evil.clean=cat", "-c", "filter.evil.process=", "-c", "core.fsmonitor=false", "add", "-f", "other.env")
	only(f.turn("t4", nil, func() { f.write("other.env", "tracked now\n") }), "other.env")
	assertNotRun(t, marker)
}

// A turn id is looked up exactly: a git pattern, a ref path or a prefix
// of a real id names no turn.
func TestATurnIdIsNotAPattern(t *testing.T) {
	f := newFixture(t)
	f.write("a.txt", "one\n")
	f.turn("turn-1", nil, func() { f.write("a.txt", "two\n") })
	ctx := context.Background()
	if _, ok, err := f.repo.TurnChanges(ctx, "turn-1", ""); !ok || err != nil {
		t.Fatalf("the turn itself: %v, %v", ok, err)
	}
	for _, id := range []string{"*", "turn-*", "turn-?", "turn-[1]", "turn", "turn-1/before", "../turn-1", "", "turn-1\n", "-v", "@{0}"} {
		files, ok, err := f.repo.TurnChanges(ctx, id, "")
		if ok || err != nil || files != nil {
			t.Errorf("turn %q: %v, %v, %v; want no turn and no error", id, files, ok, err)
		}
		if targets, err := f.repo.Plan(ctx, []string{id}); len(targets) != 0 || err != nil {
			t.Errorf("plan of turn %q: %v, %v", id, targets, err)
		}
	}
	if _, err := f.repo.Begin(ctx, "turn-*", true); err == nil {
		t.Error("a checkpoint was begun for the id turn-*")
	}
}

// A workspace whose .git/index is a named pipe (a shell command can make
// one) neither blocks a snapshot, which would wait for a writer for ever
// (this test then hangs until go test's timeout), nor loses it.
func TestAUserIndexThatIsAFifoDoesNotBlockASnapshot(t *testing.T) {
	f := newFixture(t)
	f.write("a.txt", "one\n")
	if err := os.MkdirAll(filepath.Join(f.ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(f.ws, ".git", "index"), 0o600); err != nil {
		t.Fatal(err)
	}
	if changes := f.turn("t1", nil, func() { f.write("a.txt", "two\n") }); len(changes) != 1 || changes[0].Path != "a.txt" {
		t.Fatalf("changes = %+v", changes)
	}
}

// A model whose edit rule lets it write a vendored repository's
// .git/config adds a clean filter there: later snapshots never run it.
func TestAFilterAModelWritesIntoANestedRepositorysConfigNeverRuns(t *testing.T) {
	f := newFixture(t)
	marker := filepath.Join(t.TempDir(), "ran")
	nested := filepath.Join(f.ws, "vendor", "x")
	f.write("vendor/x/b.txt", "b\n")
	f.write("vendor/x/.gitattributes", "* filter=evil\n")
	f.write("a.txt", "one\n")
	userGit(t, nested, "init", "-q")
	userGit(t, nested, "add", ".")
	userGit(t, nested, "commit", "-qm", "vendored")
	config, err := os.ReadFile(filepath.Join(nested, ".git", "config"))
	if err != nil {
		t.Fatal(err)
	}
	f.turn("t1", []string{"a.txt"}, func() {
		f.write("a.txt", "two\n")
		f.write("vendor/x/.git/config", string(config)+"[filter \"evil\"]\n\tclean = "+trap(marker)+"\n[core]\n\tfsmonitor = "+trap(marker)+"\n")
	})
	f.turn("t2", nil, func() {
		f.write("a.txt", "three\n")
		f.write("vendor/x/b.txt", "b\n")
	})
	if out := f.revert(false, "t1", "t2"); len(out.Conflicts) != 0 {
		t.Fatalf("revert = %+v", out)
	}
	if got, _ := f.read("a.txt"); got != "one\n" {
		t.Errorf("a.txt = %q", got)
	}
	assertNotRun(t, marker)
}

// A named pipe called .gitignore or .gitattributes (a shell command can
// make one) blocks git's open of it for ever: a snapshot waits at most
// its bound, then fails saying why, and git is gone.
func TestANamedPipeGitWouldWaitOnFailsTheSnapshotAtItsBound(t *testing.T) {
	for _, name := range []string{".gitignore", "sub/.gitattributes"} {
		f := newFixture(t)
		f.repo.g.maxWait = time.Second // the default is minutes
		f.write("sub/a.txt", "one\n")
		if err := syscall.Mkfifo(filepath.Join(f.ws, name), 0o600); err != nil {
			t.Fatal(err)
		}
		tree, err := f.repo.Snapshot(context.Background())
		if tree != "" || err == nil || !strings.Contains(err.Error(), "did not finish within") {
			t.Fatalf("%s: snapshot = %q, %v", name, tree, err)
		}
	}
}

// A user whose repository keeps a split index (core.splitIndex: most of
// the entries in a sharedindex file beside the index) still has the files
// it tracks that a .gitignore pattern matches kept in snapshots, and
// never gets a reason to think they were.
func TestAFileTheUsersSplitIndexTracksIsNeverIgnored(t *testing.T) {
	for _, version := range []string{"2", "3", "4"} {
		f := newFixture(t)
		f.write(".gitignore", "*.env\n")
		f.write("keep.env", "KEY=one\n")
		f.write("a.txt", "a\n")
		f.write("deep/er/name-of-another-length.txt", "b\n")
		userGit(t, f.ws, "init", "-q")
		userGit(t, f.ws, "config", "core.splitIndex", "true")
		userGit(t, f.ws, "config", "index.version", version)
		userGit(t, f.ws, "add", "-f", ".gitignore", "keep.env", "a.txt", "deep")
		userGit(t, f.ws, "commit", "-qm", "first")
		if version == "3" { // git writes version 3 only for an entry with extended flags
			userGit(t, f.ws, "update-index", "--skip-worktree", "a.txt")
		}
		shared, _ := filepath.Glob(filepath.Join(f.ws, ".git", "sharedindex.*"))
		if len(shared) == 0 {
			t.Fatal("the user's git wrote no shared index")
		}
		changes := f.turn("t1", nil, func() { f.write("keep.env", "KEY=two\n") })
		if len(changes) != 1 || changes[0].Path != "keep.env" {
			t.Fatalf("index version %s: changes = %+v; want keep.env", version, changes)
		}
		if out := f.revert(false, "t1"); len(out.Reverted) != 1 || len(out.Conflicts) != 0 {
			t.Fatalf("index version %s: revert = %+v", version, out)
		}
		if s, _ := f.read("keep.env"); s != "KEY=one\n" {
			t.Errorf("index version %s: keep.env = %q", version, s)
		}
	}
}
