package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"scv/internal/fakeopenai"
	"scv/lsp/lsptest"
	"scv/lsp/schema"
	"scv/runtime/config"
	"scv/runtime/session"
)

func TestAllowRulesRunMatchingCallsWithoutAsking(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		env.Set("approvals", "allow", []string{"shell:echo *", "edit:docs/**"})
		env.OpenAI.Enqueue(
			toolReply("call_1", "shell", map[string]string{"command": "echo allowed"}),
			toolReply("call_2", "write_file", map[string]string{"path": "docs/a.md", "content": "a\n"}),
			toolReply("call_3", "shell", map[string]string{"command": "echo x; echo y"}),
			fakeopenai.Reply{Chunks: []string{"done"}},
		)
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		turn := ed.StartTurn(sid, "go").TurnID
		// Only the command with shell syntax is asked about, and no rule is
		// offered for it.
		asked := ed.AwaitNotification(schema.EvApprovalRequested, lsptest.ForTurn(turn), 0)
		req := decodeApproval(t, asked)
		if req.CallID != "call_3" || req.SuggestedRule != "" || strings.Contains(string(asked.Params), "suggestedRule") {
			t.Errorf("approval/requested = %s, want call_3 without a suggested rule", asked.Params)
		}
		ed.Resolve(sid, req.ApprovalID, session.DecisionDeny)
		ed.ExpectTerminal(turn, schema.EvTurnCompleted)
		if n := len(ed.Notes(schema.EvApprovalRequested, lsptest.ForTurn(turn))); n != 1 {
			t.Errorf("%d approval requests, want 1", n)
		}
		if got := env.ReadFile("docs/a.md"); got != "a\n" {
			t.Errorf("docs/a.md = %q", got)
		}
		if got := toolResult(t, env, 1, "call_1"); !strings.Contains(got, "allowed") {
			t.Errorf("the allowed command told the model %q", got)
		}
	})
}

func TestAlwaysAllowAddsTheRuleToTheUserConfig(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		env.OpenAI.Enqueue(
			toolReply("call_1", "write_file", map[string]string{"path": "notes/a.md", "content": "a\n"}),
			fakeopenai.Reply{Chunks: []string{"first"}},
			toolReply("call_2", "write_file", map[string]string{"path": "notes/b.md", "content": "b\n"}),
			fakeopenai.Reply{Chunks: []string{"second"}},
		)
		ed := connect(t, env)
		before, err := os.ReadFile(config.UserFile(env.Home))
		if err != nil {
			t.Fatal(err)
		}
		sid := ed.StartSession("", nil).SessionID
		turn := ed.StartTurn(sid, "write a").TurnID
		req := decodeApproval(t, ed.AwaitNotification(schema.EvApprovalRequested, lsptest.ForTurn(turn), 0))
		if req.SuggestedRule != "edit:notes/**" {
			t.Errorf("suggestedRule = %q, want edit:notes/**", req.SuggestedRule)
		}
		// Refused: a rule with deny, a rule that does not cover the call, a bad rule.
		for _, bad := range []schema.ApprovalResolveParams{
			{SessionID: sid, ApprovalID: req.ApprovalID, Decision: "deny", AllowRule: req.SuggestedRule},
			{SessionID: sid, ApprovalID: req.ApprovalID, Decision: "approve", AllowRule: "edit:other/**"},
			{SessionID: sid, ApprovalID: req.ApprovalID, Decision: "approve", AllowRule: "shell:rm -rf *; x"},
		} {
			err := ed.Call(schema.MethodApprovalResolve, bad, nil)
			lsptest.ExpectError(t, err, -32602, "")
		}
		var res schema.ApprovalResolveResult
		ed.MustCall(schema.MethodApprovalResolve, schema.ApprovalResolveParams{
			SessionID: sid, ApprovalID: req.ApprovalID, Decision: "approve", AllowRule: req.SuggestedRule,
		}, &res)
		if res.RuleAddedTo != config.UserFile(env.Home) {
			t.Errorf("ruleAddedTo = %q, want the user's file %s", res.RuleAddedTo, config.UserFile(env.Home))
		}
		resolved := ed.AwaitNotification(schema.EvApprovalResolved, lsptest.ForTurn(turn), 0)
		if resolved.Str("decision") != "approve" {
			t.Errorf("approval/resolved = %s", resolved.Params)
		}
		ed.ExpectTerminal(turn, schema.EvTurnCompleted)
		after, err := os.ReadFile(config.UserFile(env.Home))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(after), string(before)) || !strings.Contains(string(after), `allow = ["edit:notes/**"]`) {
			t.Errorf("the user's file became:\n%s\nfrom:\n%s", after, before)
		}
		if _, err := os.Stat(config.ProjectFile(env.Work)); err == nil {
			t.Error("a project file was written")
		}

		// From now on such calls run without asking, in a new session too.
		other := ed.StartSession("", nil).SessionID
		turn2 := ed.StartTurn(other, "write b").TurnID
		ed.ExpectTerminal(turn2, schema.EvTurnCompleted)
		if n := len(ed.Notes(schema.EvApprovalRequested, lsptest.ForTurn(turn2))); n != 0 {
			t.Errorf("%d approval requests after the rule was added", n)
		}
		if got := env.ReadFile("notes/b.md"); got != "b\n" {
			t.Errorf("notes/b.md = %q", got)
		}
	})
}

func TestWorkspaceConfigMayNotAllowCalls(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		project := env.WriteFile(filepath.Join(config.ProjectDir, config.FileName), "[approvals]\nallow = [\"shell:rm *\"]\n")
		ed := connect(t, env)
		_, err := ed.TryStartSession("", nil)
		e := lsptest.ExpectError(t, err, -32602, "")
		for _, want := range []string{"approvals.allow", project, config.UserFile(env.Home)} {
			if !strings.Contains(e.Message, want) {
				t.Errorf("error %q does not name %q", e.Message, want)
			}
		}
	})
}
