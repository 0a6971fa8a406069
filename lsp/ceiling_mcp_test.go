package lsp_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"scv/internal/fakeopenai"
	"scv/internal/mcptest"
	"scv/lsp/lsptest"
	"scv/lsp/schema"
	"scv/runtime/config"
)

// `trust = true` on an MCP server (here one an editor's scv/session/start
// names, as a repository's editor settings may) makes its tools run like
// read-only ones, but never above the session's ceiling: under a project's
// never, the mcp class is denied, trusted or not.
func TestATrustedMCPServerDoesNotLiftTheCeiling(t *testing.T) {
	node, script := mcptest.Script(t, mcptest.Everything) // skip before the parallel subtests when missing
	each(t, func(t *testing.T, env *lsptest.Env) {
		env.WriteFile(filepath.Join(config.ProjectDir, config.FileName), "[agent]\napproval_policy = \"never\"\n")
		server, err := json.Marshal(map[string]any{
			"command": node, "args": []string{script, "stdio"}, "startupTimeoutSec": 30,
			"env": map[string]string{markerEnv: newMarker()}, "trust": true,
		})
		if err != nil {
			t.Fatal(err)
		}
		env.OpenAI.Enqueue(
			toolReply("call_1", "mcp__everything__echo", map[string]string{"message": "hello-mcp"}),
			fakeopenai.Reply{Chunks: []string{"done"}},
		)
		ed := connect(t, env)
		sid := ed.StartSession("", &schema.SessionStartParams{MCPServers: map[string]json.RawMessage{"everything": server}}).SessionID
		turn := ed.StartTurn(sid, "echo something").TurnID
		ed.ExpectTerminal(turn, schema.EvTurnCompleted)
		if n := len(ed.Notes(schema.EvApprovalRequested, nil)); n != 0 {
			t.Errorf("%d approvals asked for under a never ceiling, want the call denied", n)
		}
		got := toolResult(t, env, 1, "call_1")
		if strings.Contains(got, "hello-mcp") || !strings.Contains(got, "denied") {
			t.Errorf("a trusted server's tool under a project's never told the model %q, want it denied", got)
		}
		ed.MustCall(schema.MethodSessionClose, schema.SessionRef{SessionID: sid}, nil)
	})
}
