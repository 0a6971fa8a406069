package checkpoint

import (
	"context"
	"testing"
)

// A file tool may write a name Linux allows and git refuses to store
// (git~1, .GIT: names git keeps out of every repository for other
// systems' sake). That file has no undo, but the turn's other files keep
// theirs, whether the checkpoint is whole or only the file tools' paths.
func TestANameGitRefusesLeavesTheTurnsOtherChangesUndoable(t *testing.T) {
	for _, whole := range []bool{true, false} {
		f := newFixture(t)
		f.write("a.txt", "one\n")
		f.write(".GIT/old.txt", "old\n")
		ctx := context.Background()
		tt, err := f.repo.Begin(ctx, "t1", whole)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"a.txt", "git~1/new.txt", ".GIT/old.txt"} {
			tt.Touch(ctx, p) // git~1 and .GIT cannot be kept: Touch says so
		}
		f.write("a.txt", "two\n")
		f.write("git~1/new.txt", "new\n")
		f.write(".GIT/old.txt", "changed\n")
		tt.ToolDone()
		changes, err := tt.Finish(ctx)
		if err != nil {
			t.Fatalf("whole=%v: %v", whole, err)
		}
		if len(changes) != 1 || changes[0].Path != "a.txt" {
			t.Fatalf("whole=%v: changes = %+v; want a.txt", whole, changes)
		}
		if out := f.revert(false, "t1"); len(out.Reverted) != 1 || len(out.Conflicts) != 0 {
			t.Fatalf("whole=%v: revert = %+v", whole, out)
		}
		for path, want := range map[string]string{"a.txt": "one\n", "git~1/new.txt": "new\n", ".GIT/old.txt": "changed\n"} {
			if s, _ := f.read(path); s != want {
				t.Errorf("whole=%v: %s = %q; want %q", whole, path, s, want)
			}
		}
	}
}

// A file tool creating a file a .gitignore pattern matches (.env) is the
// turn's change like any other: listed, and removed by its undo.
func TestAnIgnoredFileAFileToolCreatesIsUndone(t *testing.T) {
	f := newFixture(t)
	f.write(".gitignore", "*.env\n")
	changes := f.turn("t1", []string{"new.env"}, func() { f.write("new.env", "KEY=x\n") })
	if len(changes) != 1 || changes[0].Path != "new.env" {
		t.Fatalf("changes = %+v; want new.env", changes)
	}
	if out := f.revert(false, "t1"); len(out.Reverted) != 1 || len(out.Conflicts) != 0 {
		t.Fatalf("revert = %+v", out)
	}
	if _, there := f.read("new.env"); there {
		t.Fatal("new.env is still there after its turn was undone")
	}
}
