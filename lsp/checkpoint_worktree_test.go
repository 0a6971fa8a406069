package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"scv/internal/fakeopenai"
	"scv/internal/fifotest"
	"scv/lsp/lsptest"
	"scv/lsp/schema"
)

// After the turn the user swaps the edited directory for a symlink to a
// directory outside the workspace and puts a named pipe where the turn
// left a file: a forced revert over the wire answers with a conflict
// saying why, shows no outside text, opens no pipe and writes nothing,
// outside or in; once the symlink is gone the same forced revert restores
// both files (the pipe replaced, never read) and the turn is reverted.
func TestARevertOverTheWireStaysInTheWorkspaceAndOpensNoPipe(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		env.Set("agent", "approval_policy", "auto")
		outside := t.TempDir()
		if err := os.WriteFile(filepath.Join(outside, "a.txt"), []byte("outside secret\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		env.WriteFile("dir/a.txt", "one\n")
		env.WriteFile("p.txt", "pee\n")
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		env.OpenAI.Enqueue(
			toolReply("c1", "write_file", map[string]string{"path": "dir/a.txt", "content": "two\n"}),
			toolReply("c2", "write_file", map[string]string{"path": "p.txt", "content": "pee2\n"}),
			fakeopenai.Reply{Chunks: []string{"done"}})
		turn := ed.StartTurn(sid, "edit").TurnID
		ed.AwaitNotification(schema.EvTurnChanges, lsptest.ForTurn(turn), 0)
		ed.ExpectTerminal(turn, schema.EvTurnCompleted)

		dir, mine := filepath.Join(env.Work, "dir"), filepath.Join(env.Work, "mine")
		if err := os.Rename(dir, mine); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, dir); err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(env.Work, "p.txt"))
		pipe := fifotest.Make(t, filepath.Join(env.Work, "p.txt"))

		var res schema.TurnRevertResult
		ed.MustCall(schema.MethodTurnRevert, schema.TurnRevertParams{SessionID: sid, TurnID: turn, Force: true}, &res)
		if len(res.Reverted) != 0 || len(res.Conflicts) != 1 || res.Conflicts[0].Path != "dir/a.txt" {
			t.Fatalf("forced revert = %+v; want dir/a.txt alone as a conflict", res)
		}
		if d := res.Conflicts[0].Diff; strings.Contains(d, "outside") || !strings.Contains(d, "dir is a symlink") {
			t.Errorf("conflict diff = %q; want its reason and no outside text", d)
		}
		if b, _ := os.ReadFile(filepath.Join(outside, "a.txt")); string(b) != "outside secret\n" {
			t.Errorf("the outside file = %q", b)
		}
		if env.ReadFile("mine/a.txt") != "two\n" {
			t.Error("a refused revert wrote a file")
		}

		os.Remove(dir)
		if err := os.Rename(mine, dir); err != nil {
			t.Fatal(err)
		}
		ed.MustCall(schema.MethodTurnRevert, schema.TurnRevertParams{SessionID: sid, TurnID: turn, Force: true}, &res)
		if len(res.Reverted) != 2 || len(res.Conflicts) != 0 {
			t.Fatalf("forced revert once the symlink is gone = %+v", res)
		}
		ed.AwaitNotification(schema.EvTurnReverted, lsptest.ForTurn(turn), 0)
		if pipe.Opened() {
			t.Error("a revert opened the named pipe")
		}
		if env.ReadFile("dir/a.txt") != "one\n" || env.ReadFile("p.txt") != "pee\n" {
			t.Errorf("dir/a.txt = %q, p.txt = %q", env.ReadFile("dir/a.txt"), env.ReadFile("p.txt"))
		}
	})
}
