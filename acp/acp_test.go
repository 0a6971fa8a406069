package acp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"scv/internal/fakeopenai"
	"scv/lsp/lsptest"
	"scv/runtime/provider"
)

func TestStreamedTurnEndsWithEndTurn(t *testing.T) {
	t.Parallel()
	env := lsptest.NewEnv(t, lsptest.Binary{})
	env.OpenAI.Enqueue(fakeopenai.Reply{Chunks: []string{"Hel", "lo \"you\"\n"}})
	a := startAgent(t, env, "--daemon=never")
	a.initialize()
	sid := a.newSession(1, env.Work)
	a.request(2, "session/prompt", prompt(sid, "hi"))
	var r struct{ StopReason string }
	a.result(2, &r)
	if r.StopReason != "end_turn" {
		t.Fatalf("stopReason = %q", r.StopReason)
	}
	_, i := a.update(0, "agent_message_chunk", `"text":"Hel"`)
	_, j := a.update(i+1, "agent_message_chunk", `"text":"lo \"you\"\n"`)
	if _, k := a.waitFor("the prompt's answer", 0, func(m msg) bool { return string(m.ID) == "2" }); k < j {
		t.Fatalf("the answer (%d) came before the last chunk (%d)", k, j)
	}
}

func TestEditApprovedThroughRequestPermissionWithItsDiff(t *testing.T) {
	t.Parallel()
	env := lsptest.NewEnv(t, lsptest.Binary{})
	env.WriteFile("a.txt", "old line\n")
	args, _ := json.Marshal(map[string]string{"path": "a.txt", "old": "old line", "new": "new line"})
	env.OpenAI.Enqueue(
		fakeopenai.Reply{ToolCalls: []provider.ToolCall{{ID: "call1", Name: "edit_file", Arguments: string(args)}}},
		fakeopenai.Reply{Chunks: []string{"done"}},
	)
	a := startAgent(t, env, "--daemon=never")
	a.initialize()
	sid := a.newSession(1, env.Work)
	a.request(2, "session/prompt", prompt(sid, "edit it"))
	a.update(0, "tool_call", `"toolCallId":"call1"`, `"kind":"edit"`, `"status":"pending"`,
		`"type":"diff"`, `"oldText":"old line"`, `"newText":"new line"`, `"path":"`+env.Work+`/a.txt"`)
	ask, _ := a.waitFor("a permission request", 0, func(m msg) bool { return m.Method == "session/request_permission" })
	for _, kind := range []string{"allow_once", "allow_always", "reject_once"} {
		if !strings.Contains(ask.raw, `"kind":"`+kind+`"`) {
			t.Fatalf("permission request lacks %s: %s", kind, ask.raw)
		}
	}
	a.send(`{"jsonrpc":"2.0","id":` + string(ask.ID) + `,"result":{"outcome":{"outcome":"selected","optionId":"approve"}}}`)
	a.update(0, "tool_call_update", `"toolCallId":"call1"`, `"status":"completed"`)
	var r struct{ StopReason string }
	a.result(2, &r)
	if r.StopReason != "end_turn" {
		t.Fatalf("stopReason = %q", r.StopReason)
	}
	if got := env.ReadFile("a.txt"); got != "new line\n" {
		t.Fatalf("a.txt = %q", got)
	}
}

func TestDeniedPermissionFailsTheToolCall(t *testing.T) {
	t.Parallel()
	env := lsptest.NewEnv(t, lsptest.Binary{})
	args, _ := json.Marshal(map[string]string{"command": "touch x"})
	env.OpenAI.Enqueue(
		fakeopenai.Reply{ToolCalls: []provider.ToolCall{{ID: "c1", Name: "shell", Arguments: string(args)}}},
		fakeopenai.Reply{Chunks: []string{"ok"}},
	)
	a := startAgent(t, env, "--daemon=never")
	a.initialize()
	sid := a.newSession(1, env.Work)
	a.request(2, "session/prompt", prompt(sid, "run"))
	ask, _ := a.waitFor("a permission request", 0, func(m msg) bool { return m.Method == "session/request_permission" })
	a.send(`{"jsonrpc":"2.0","id":` + string(ask.ID) + `,"result":{"outcome":{"outcome":"cancelled"}}}`)
	a.update(0, "tool_call_update", `"toolCallId":"c1"`, `"status":"failed"`)
	a.result(2, nil)
}

func TestQueuedPromptIsAnsweredAtItsOwnTurnsEndAndCancelAnswersCancelled(t *testing.T) {
	t.Parallel()
	env := lsptest.NewEnv(t, lsptest.Binary{})
	hold, release := env.Hold()
	env.OpenAI.Enqueue(
		fakeopenai.Reply{Chunks: []string{"first"}, Hold: hold},
		fakeopenai.Reply{Chunks: []string{"second"}},
	)
	a := startAgent(t, env, "--daemon=never")
	a.initialize()
	sid := a.newSession(1, env.Work)
	a.request(2, "session/prompt", prompt(sid, "one"))
	a.update(0, "agent_message_chunk", `"text":"first"`)
	a.request(3, "session/prompt", prompt(sid, "two"))
	// The queued prompt is not answered while the first turn runs: the
	// cancel below ends only the running one.
	a.send(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"` + sid + `"}}`)
	var r struct{ StopReason string }
	a.result(2, &r)
	if r.StopReason != "cancelled" {
		t.Fatalf("first stopReason = %q", r.StopReason)
	}
	release()
	a.result(3, &r)
	if r.StopReason != "end_turn" {
		t.Fatalf("queued stopReason = %q", r.StopReason)
	}
	_, i := a.update(0, "agent_message_chunk", `"text":"second"`)
	if _, k := a.waitFor("the queued answer", 0, func(m msg) bool { return string(m.ID) == "3" }); k < i {
		t.Fatal("the queued prompt was answered before its own turn's output")
	}
}

func TestLoadReplaysTheTranscriptOnANewConnectionThroughTheSameProcess(t *testing.T) {
	t.Parallel()
	env := lsptest.NewEnv(t, lsptest.Binary{})
	env.OpenAI.Enqueue(fakeopenai.Reply{Chunks: []string{"answer one"}})
	a := startAgent(t, env, "--daemon=never")
	a.initialize()
	sid := a.newSession(1, env.Work)
	a.request(2, "session/prompt", prompt(sid, "question one"))
	a.result(2, nil)
	a.request(3, "session/list", map[string]any{})
	var list struct {
		Sessions []struct{ SessionID, Cwd string }
	}
	a.result(3, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].SessionID != sid || list.Sessions[0].Cwd != env.Work {
		t.Fatalf("session/list = %+v", list)
	}
	a.request(4, "session/load", map[string]any{"sessionId": sid, "cwd": env.Work, "mcpServers": []any{}})
	_, u := a.update(0, "user_message_chunk", "question one")
	_, c := a.update(u, "agent_message_chunk", "answer one")
	if _, k := a.waitFor("the load answer", 0, func(m msg) bool { return string(m.ID) == "4" }); k < c {
		t.Fatal("session/load answered before its replay")
	}
}

func TestSetModeChangesTheApprovalPolicy(t *testing.T) {
	t.Parallel()
	env := lsptest.NewEnv(t, lsptest.Binary{})
	args, _ := json.Marshal(map[string]string{"path": "n.txt", "content": "x"})
	env.OpenAI.Enqueue(
		fakeopenai.Reply{ToolCalls: []provider.ToolCall{{ID: "w1", Name: "write_file", Arguments: string(args)}}},
		fakeopenai.Reply{Chunks: []string{"ok"}},
	)
	a := startAgent(t, env, "--daemon=never")
	a.initialize()
	sid := a.newSession(1, env.Work)
	a.request(2, "session/set_config_option", map[string]any{"sessionId": sid, "configId": "mode", "value": "auto"})
	var opts struct {
		ConfigOptions []struct{ ID, CurrentValue string }
	}
	a.result(2, &opts)
	if opts.ConfigOptions[0].ID != "mode" || opts.ConfigOptions[0].CurrentValue != "auto" {
		t.Fatalf("config options = %+v", opts)
	}
	a.request(3, "session/prompt", prompt(sid, "write"))
	a.result(3, nil)
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, m := range a.msgs {
		if m.Method == "session/request_permission" {
			t.Fatal("a Never ask session asked for permission")
		}
	}
	if env.ReadFile("n.txt") != "x" {
		t.Fatal("write_file did not run")
	}
}

func TestBadInputGetsErrorsAndTheAgentLives(t *testing.T) {
	t.Parallel()
	env := lsptest.NewEnv(t, lsptest.Binary{})
	env.Set("protocol", "max_client_frame_bytes", 4096)
	a := startAgent(t, env, "--daemon=never")
	a.request(1, "session/new", map[string]any{"cwd": env.Work, "mcpServers": []any{}})
	if code, _ := a.errorCode(1); code != -32600 {
		t.Fatalf("request before initialize: code %d", code)
	}
	a.initialize()
	a.send("{not json")
	a.waitFor("a parse error", 0, func(m msg) bool { return m.Error != nil && m.Error.Code == -32700 })
	a.send("\x00\x01\xff\xfe binary")
	a.send(`{"jsonrpc":"2.0","id":2,"method":"x` + strings.Repeat("y", 10000) + `"}`)
	a.waitFor("a frame_too_large error", 0, func(m msg) bool { return m.Error != nil && m.Error.Data.Code == "frame_too_large" })
	a.request(3, "session/prompt", map[string]any{"sessionId": "nope", "prompt": []any{}})
	if _, data := a.errorCode(3); data != "session_not_found" {
		t.Fatalf("unknown session: data.code %q", data)
	}
	a.request(4, "session/new", map[string]any{"cwd": 42})
	if code, _ := a.errorCode(4); code != -32602 {
		t.Fatalf("wrong type: code %d", code)
	}
	a.request(5, "no/such", map[string]any{})
	if code, _ := a.errorCode(5); code != -32601 {
		t.Fatalf("unknown method: code %d", code)
	}
	a.newSession(6, env.Work) // still alive
}
