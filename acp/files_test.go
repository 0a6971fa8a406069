package acp_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"scv/internal/fakeopenai"
	"scv/runtime/provider"
)

func toolCall(id, name string, args map[string]string) fakeopenai.Reply {
	raw, _ := json.Marshal(args)
	return fakeopenai.Reply{ToolCalls: []provider.ToolCall{{ID: id, Name: name, Arguments: string(raw)}}}
}

// A client advertising fs gets the file tools' reads and writes: the model
// sees the client's buffer, a write goes to the client after approval and
// leaves the disk alone, and a path outside the workspace never reaches it.
func TestFileToolsGoThroughTheClientsFS(t *testing.T) {
	eachBackend(t, fileToolsGoThroughTheClientsFS)
}

func fileToolsGoThroughTheClientsFS(t *testing.T, backend string) {
	env := newEnvFor(t, backend)
	env.WriteFile("a.txt", "on disk\n")
	env.OpenAI.Enqueue(
		toolCall("r1", "read_file", map[string]string{"path": "a.txt"}),
		toolCall("w1", "write_file", map[string]string{"path": "a.txt", "content": "written\n"}),
		toolCall("o1", "read_file", map[string]string{"path": "../outside.txt"}),
		fakeopenai.Reply{Chunks: []string{"done"}},
	)
	a, _ := startAgentFor(t, env, backend)
	a.request(0, "initialize", map[string]any{"protocolVersion": 1,
		"clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": true, "writeTextFile": true}}})
	a.result(0, nil)
	sid := a.newSession(1, env.Work)
	work, err := filepath.EvalSymlinks(env.Work)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(work, "a.txt")
	a.request(2, "session/prompt", prompt(sid, "go"))

	read, i := a.waitFor("fs/read_text_file", 0, func(m msg) bool { return m.Method == "fs/read_text_file" })
	var rp struct{ SessionID, Path string }
	json.Unmarshal(read.Params, &rp)
	if rp.SessionID != sid || rp.Path != path {
		t.Fatalf("fs/read_text_file params = %s, want session %s and path %s", read.Params, sid, path)
	}
	a.send(`{"jsonrpc":"2.0","id":` + string(read.ID) + `,"result":{"content":"unsaved buffer\n"}}`)

	ask, j := a.waitFor("a permission request", i, func(m msg) bool { return m.Method == "session/request_permission" })
	// The proposal's diff holds the text the write replaces (the disk's).
	a.update(0, "tool_call", `"toolCallId":"w1"`, `"type":"diff"`, `"oldText":"on disk\n"`, `"newText":"written\n"`)
	a.send(`{"jsonrpc":"2.0","id":` + string(ask.ID) + `,"result":{"outcome":{"outcome":"selected","optionId":"approve"}}}`)
	// write_file reads the text it replaces (for its report) from the client too.
	old, _ := a.waitFor("write_file's fs/read_text_file", j, func(m msg) bool { return m.Method == "fs/read_text_file" })
	a.send(`{"jsonrpc":"2.0","id":` + string(old.ID) + `,"result":{"content":"unsaved buffer\n"}}`)
	write, k := a.waitFor("fs/write_text_file", 0, func(m msg) bool { return m.Method == "fs/write_text_file" })
	if k < j {
		t.Fatalf("fs/write_text_file (message %d) came before the approval (%d)", k, j)
	}
	var wp struct{ SessionID, Path, Content string }
	json.Unmarshal(write.Params, &wp)
	if wp.SessionID != sid || wp.Path != path || wp.Content != "written\n" {
		t.Fatalf("fs/write_text_file params = %s", write.Params)
	}
	a.send(`{"jsonrpc":"2.0","id":` + string(write.ID) + `,"result":{}}`)
	a.update(k, "tool_call_update", `"toolCallId":"w1"`, `"status":"completed"`)
	a.update(k, "tool_call_update", `"toolCallId":"o1"`, `"status":"failed"`, "outside the workspace")

	var r struct{ StopReason string }
	a.result(2, &r)
	if r.StopReason != "end_turn" {
		t.Fatalf("stopReason = %q", r.StopReason)
	}
	if got := env.ReadFile("a.txt"); got != "on disk\n" {
		t.Fatalf("the disk changed: a.txt = %q", got)
	}
	a.mu.Lock()
	fsCalls := 0
	for _, m := range a.msgs {
		if strings.HasPrefix(m.Method, "fs/") {
			fsCalls++
		}
	}
	a.mu.Unlock()
	if fsCalls != 3 { // the read, write_file's read of the old text, the write
		t.Fatalf("%d fs requests, want 3 (none for the path outside the workspace)", fsCalls)
	}
	reqs := env.OpenAI.Requests()
	if len(reqs) < 2 {
		t.Fatalf("%d model requests", len(reqs))
	}
	var toolText string
	for _, m := range reqs[1].Messages {
		if m.Role == "tool" && m.ToolCallID == "r1" {
			toolText = m.Content
		}
	}
	if !strings.Contains(toolText, "unsaved buffer") || strings.Contains(toolText, "on disk") {
		t.Fatalf("the model got %q for read_file, want the client's buffer", toolText)
	}
}

// session/cancel while the client has not answered fs/read_text_file
// withdraws that request and ends the prompt cancelled.
func TestCancelWithdrawsAnOpenFSRequest(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		cancelWithdrawsAnOpenFSRequest(t, backend)
	})
}

func cancelWithdrawsAnOpenFSRequest(t *testing.T, backend string) {
	env := newEnvFor(t, backend)
	env.WriteFile("a.txt", "on disk\n")
	env.OpenAI.Enqueue(toolCall("r1", "read_file", map[string]string{"path": "a.txt"}))
	a, _ := startAgentFor(t, env, backend)
	a.request(0, "initialize", map[string]any{"protocolVersion": 1,
		"clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": true}}})
	a.result(0, nil)
	sid := a.newSession(1, env.Work)
	a.request(2, "session/prompt", prompt(sid, "go"))
	read, i := a.waitFor("fs/read_text_file", 0, func(m msg) bool { return m.Method == "fs/read_text_file" })
	a.send(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"` + sid + `"}}`)
	a.waitFor("$/cancel_request for the fs request", i, func(m msg) bool {
		return m.Method == "$/cancel_request" && strings.Contains(string(m.Params), `"requestId":`+string(read.ID))
	})
	var r struct{ StopReason string }
	a.result(2, &r)
	if r.StopReason != "cancelled" {
		t.Fatalf("stopReason = %q", r.StopReason)
	}
}
