package acp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"scv/internal/fakeopenai"
	"scv/lsp/lsptest"
	"scv/lsp/schema"
	"scv/runtime/provider"
)

// An ACP window and an scv/* window share a daemon session: the ACP
// client loads the session the editor started, its prompt's approval is
// resolved by the editor (first resolver wins), the ACP request is
// withdrawn, and the editor's own prompt shows in ACP as a user message.
func TestACPAndSCVClientShareADaemonSession(t *testing.T) {
	t.Parallel()
	env := lsptest.NewEnv(t, lsptest.Forwarded{Path: bin})
	args, _ := json.Marshal(map[string]string{"command": "true"})
	env.OpenAI.Enqueue(
		fakeopenai.Reply{ToolCalls: []provider.ToolCall{{ID: "s1", Name: "shell", Arguments: string(args)}}},
		fakeopenai.Reply{Chunks: []string{"ran it"}},
		fakeopenai.Reply{Chunks: []string{"editor answer"}},
	)
	a, ed := startAgentFor(t, env, "daemon")
	snap := ed.StartSession(env.Work, nil)
	a.initialize()
	a.request(1, "session/load", map[string]any{"sessionId": snap.SessionID, "cwd": env.Work, "mcpServers": []any{}})
	a.result(1, nil)

	a.request(2, "session/prompt", prompt(snap.SessionID, "run true"))
	ask, _ := a.waitFor("a permission request", 0, func(m msg) bool { return m.Method == "session/request_permission" })
	req := ed.AwaitNotification(schema.EvApprovalRequested, nil, lsptest.DefaultTimeout)
	var approval struct{ ApprovalID string }
	if err := json.Unmarshal(req.Params, &approval); err != nil {
		t.Fatal(err)
	}
	ed.Resolve(snap.SessionID, approval.ApprovalID, "approve")
	a.waitFor("the withdrawal of the permission request", 0, func(m msg) bool {
		return m.Method == "$/cancel_request" && strings.Contains(m.raw, `"requestId":`+string(ask.ID))
	})
	var r struct{ StopReason string }
	a.result(2, &r)
	if r.StopReason != "end_turn" {
		t.Fatalf("stopReason = %q", r.StopReason)
	}
	a.update(0, "agent_message_chunk", "ran it")

	turn := ed.StartTurn(snap.SessionID, "from the editor")
	ed.AwaitTerminal(turn.TurnID)
	a.update(0, "user_message_chunk", "from the editor")
	a.update(0, "agent_message_chunk", "editor answer")
}
