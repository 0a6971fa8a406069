package lsp_test

import (
	"strings"
	"testing"

	"scv/internal/fakeopenai"
	"scv/lsp/lsptest"
	"scv/lsp/schema"
	"scv/runtime/session"
)

// The flags `scv lsp` was started with bind its sessions whether it serves
// them itself or forwards them to a daemon: --approval and --model win over
// the user's config and the session/start params.
func TestLSPFlagsBindSessions(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		env.Flags.ApprovalPolicy = "always"
		env.Flags.Model = "flag-model"
		env.WriteFile("notes.txt", "hello\n")
		env.OpenAI.Enqueue(
			toolReply("call_1", "read_file", map[string]string{"path": "notes.txt"}),
			fakeopenai.Reply{Chunks: []string{"read it"}},
		)
		ed := connect(t, env)
		// The editor asks for a policy and a model of its own: the flags win.
		sid := ed.StartSession("", &schema.SessionStartParams{ApprovalPolicy: "auto", Model: "editor-model"}).SessionID
		turn := ed.StartTurn(sid, "read notes.txt").TurnID
		// always asks even for a read; auto (the editor's choice) never would.
		asked := ed.AwaitNotification(schema.EvApprovalRequested, lsptest.ForTurn(turn), 0)
		req := decodeApproval(t, asked)
		if req.Name != "read_file" {
			t.Fatalf("approval requested for %s, want read_file", req.Name)
		}
		ed.Resolve(sid, req.ApprovalID, session.DecisionApprove)
		ed.ExpectTerminal(turn, schema.EvTurnCompleted)
		reqs, err := env.OpenAI.WaitRequests(1, env.Timeout)
		if err != nil {
			t.Fatal(err)
		}
		if reqs[0].Model != "flag-model" {
			t.Errorf("the model was asked as %q, want the --model flag's flag-model", reqs[0].Model)
		}
	})
}

// --no-tools makes every session of that `scv lsp` chat-only, forwarded too.
func TestLSPNoToolsFlagOffersNoTools(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		noTools := true
		env.Flags.NoTools = &noTools
		env.OpenAI.Enqueue(fakeopenai.Reply{Chunks: []string{"just talk"}})
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		ed.ExpectTerminal(ed.StartTurn(sid, "hi").TurnID, schema.EvTurnCompleted)
		if n := toolsOffered(t, env, 0); n != 0 {
			t.Errorf("the model was offered %d tools under --no-tools", n)
		}
	})
}

// initializationOptions.scv.flags is the wire form of those flags: a bad
// value in it is refused at session/start, naming the key.
func TestInitializeFlagsAreValidatedAtSessionStart(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		ed := env.Connect()
		ed.MustCall("initialize", map[string]any{"processId": nil, "capabilities": map[string]any{},
			"initializationOptions": map[string]any{"scv": map[string]any{"flags": map[string]any{"approvalPolicy": "sometimes"}}}}, nil)
		_, err := ed.TryStartSession("", nil)
		e := lsptest.ExpectError(t, err, codeInvalidParams, "")
		if !strings.Contains(e.Message, "agent.approval_policy") || !strings.Contains(e.Message, "sometimes") {
			t.Errorf("the refusal says %q; want it to name agent.approval_policy and the bad value", e.Message)
		}
	})
}
