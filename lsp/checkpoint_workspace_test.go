package lsp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"scv/internal/fakeopenai"
	"scv/lsp/lsptest"
	"scv/lsp/schema"
)

// A workspace with a vendored repository whose config names a clean
// filter (and an fsmonitor) for all its files: a turn whose shell command
// rewrites one of them is checkpointed, reviewed and undone without that
// program ever running. Its turn id is looked up exactly: a pattern or a
// prefix of it is turn_not_found, not git's error or another turn.
func TestANestedRepositoryRunsNothingAndTurnIdsAreExact(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		env.Set("agent", "approval_policy", "auto")
		marker := filepath.Join(t.TempDir(), "ran")
		trap := "touch " + marker + "; cat"
		env.WriteFile("vendor/x/a.txt", "secret\n")
		env.WriteFile("vendor/x/.gitattributes", "* filter=evil\n")
		env.WriteFile("top.txt", "one\n")
		nested := filepath.Join(env.Work, "vendor", "x")
		for _, args := range [][]string{
			{"init", "-q"},
			{"-c", "filter.evil.clean=cat", "add", "."},
			{"-c", "filter.evil.clean=cat", "commit", "-qm", "vendored"},
			{"config", "filter.evil.clean", trap},
			{"config", "core.fsmonitor", trap},
		} {
			cmd := exec.Command("git", append([]string{"-C", nested, "-c", "user.name=u", "-c", "user.email=u@x"}, args...)...)
			cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		env.OpenAI.Enqueue(
			toolReply("c1", "shell", map[string]string{"command": "printf 'secret\\n' > vendor/x/a.txt && printf 'two\\n' > top.txt"}),
			fakeopenai.Reply{Chunks: []string{"done"}})
		turn := ed.StartTurn(sid, "rewrite").TurnID
		ed.AwaitNotification(schema.EvTurnChanges, lsptest.ForTurn(turn), 0)
		ed.ExpectTerminal(turn, schema.EvTurnCompleted)

		var got schema.TurnChangesResult
		ed.MustCall(schema.MethodTurnChanges, schema.TurnChangesParams{SessionID: sid, TurnID: turn}, &got)
		if len(got.Files) != 1 || got.Files[0].Path != "top.txt" {
			t.Fatalf("changes = %+v", got.Files)
		}
		for _, id := range []string{"*", turn[:8] + "*", turn[:8], turn + "/before"} {
			err := ed.Call(schema.MethodTurnChanges, schema.TurnChangesParams{SessionID: sid, TurnID: id}, nil)
			if dataCode(err) != schema.CodeTurnNotFound {
				t.Errorf("changes of turn %q: %v; want %s", id, err, schema.CodeTurnNotFound)
			}
		}
		var res schema.TurnRevertResult
		ed.MustCall(schema.MethodTurnRevert, schema.TurnRevertParams{SessionID: sid, TurnID: turn}, &res)
		if len(res.Reverted) != 1 || len(res.Conflicts) != 0 || env.ReadFile("top.txt") != "one\n" {
			t.Fatalf("revert = %+v, top.txt = %q", res, env.ReadFile("top.txt"))
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatal("git ran the program the nested repository's config names")
		}
	})
}
