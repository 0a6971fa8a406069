package lsp_test

import (
	"path/filepath"
	"testing"

	"scv/internal/fakeopenai"
	"scv/internal/mcptest"
	"scv/lsp/lsptest"
	"scv/lsp/schema"
)

// A file an MCP server's tool writes in the workspace is a change of the
// turn like a shell command's: listed, and undone by a revert.
func TestAnMCPToolsWriteCanBeUndone(t *testing.T) {
	mcptest.Script(t, mcptest.Filesystem) // skip before the parallel subtests when missing
	each(t, func(t *testing.T, env *lsptest.Env) {
		node, script := mcptest.Script(t, mcptest.Filesystem)
		env.Set("mcp_servers", "fs", map[string]any{"command": node, "args": []string{script, env.Work}, "startup_timeout_sec": 30})
		env.Set("agent", "approval_policy", "auto")
		env.WriteFile("notes.txt", "before\n")
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		ed.AwaitNotification(schema.EvMcpStatus, lsptest.All(lsptest.ForSession(sid), lsptest.WithStr("name", "fs"), lsptest.WithStr("state", "ready")), 0)
		env.OpenAI.Enqueue(
			toolReply("c1", "mcp__fs__write_file", map[string]string{"path": filepath.Join(env.Work, "notes.txt"), "content": "written by mcp\n"}),
			fakeopenai.Reply{Chunks: []string{"done"}})
		turn := ed.StartTurn(sid, "write through mcp").TurnID
		end := ed.ExpectTerminal(turn, schema.EvTurnCompleted)
		var pending struct{ ChangesPending bool }
		if err := end.Decode(&pending); err != nil || !pending.ChangesPending {
			t.Fatalf("the terminal event does not announce changes: %s", end.Params)
		}
		var ev schema.TurnChangesEventParams
		if err := ed.AwaitNotification(schema.EvTurnChanges, lsptest.ForTurn(turn), 0).Decode(&ev); err != nil {
			t.Fatal(err)
		}
		if len(ev.Files) != 1 || ev.Files[0].Path != "notes.txt" {
			t.Fatalf("turn/changes files = %+v", ev.Files)
		}
		if env.ReadFile("notes.txt") != "written by mcp\n" {
			t.Fatalf("the MCP tool did not write: %q", env.ReadFile("notes.txt"))
		}
		var res schema.TurnRevertResult
		ed.MustCall(schema.MethodTurnRevert, schema.TurnRevertParams{SessionID: sid, TurnID: turn}, &res)
		if len(res.Reverted) != 1 || env.ReadFile("notes.txt") != "before\n" {
			t.Fatalf("revert = %+v; notes.txt = %q", res, env.ReadFile("notes.txt"))
		}
	})
}
