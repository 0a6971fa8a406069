package acp_test

import (
	"strings"
	"testing"

	"scv/internal/fakeopenai"
	"scv/lsp/lsptest"
	"scv/lsp/schema"
)

// A session created over ACP outlives its process: a new scv acp lists it
// from the store and session/load replays its whole transcript.
func TestStoredSessionListedAndLoadedAfterTheProcessDied(t *testing.T) {
	t.Parallel()
	env := lsptest.NewEnv(t, lsptest.Binary{})
	env.OpenAI.Enqueue(fakeopenai.Reply{Chunks: []string{"first ", "answer"}}, fakeopenai.Reply{Chunks: []string{"second answer"}})
	a := startAgent(t, env, "--daemon=never")
	a.initialize()
	sid := a.newSession(1, env.Work)
	a.request(2, "session/prompt", prompt(sid, "first question"))
	a.result(2, nil)
	a.request(3, "session/prompt", prompt(sid, "second question"))
	a.result(3, nil)
	if err := a.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}

	b := startAgent(t, env, "--daemon=never")
	b.initialize()
	b.request(1, "session/list", map[string]any{"cwd": env.Work})
	list := b.response(1)
	if !strings.Contains(list.raw, `"sessionId":"`+sid+`"`) || !strings.Contains(list.raw, `"updatedAt":"`) {
		t.Fatalf("session/list lacks the stored session %s: %s", sid, list.raw)
	}
	b.request(2, "session/load", map[string]any{"sessionId": sid, "cwd": env.Work, "mcpServers": []any{}})
	_, i := b.update(0, "user_message_chunk", `"text":"first question"`)
	_, i = b.update(i+1, "agent_message_chunk", `"text":"first answer"`)
	_, i = b.update(i+1, "user_message_chunk", `"text":"second question"`)
	_, i = b.update(i+1, "agent_message_chunk", `"text":"second answer"`)
	if _, k := b.waitFor("the load's answer", 0, func(m msg) bool { return string(m.ID) == "2" }); k < i {
		t.Fatalf("session/load answered (%d) before the transcript's end (%d)", k, i)
	}
	b.result(2, nil)
}

// Through the daemon, an ACP client lists a session an scv/* window
// started and renamed, with its stored title, and session/load replays
// its transcript (the full replay) and sends the title.
func TestDaemonSessionFromEditorListedAndLoadedWithTitle(t *testing.T) {
	t.Parallel()
	env := lsptest.NewEnv(t, lsptest.Forwarded{Path: bin})
	env.OpenAI.Enqueue(fakeopenai.Reply{Chunks: []string{"editor ", "answer"}})
	ed := env.Connect()
	ed.Initialize()
	snap := ed.StartSession(env.Work, nil)
	turn := ed.StartTurn(snap.SessionID, "asked in the editor")
	ed.AwaitTerminal(turn.TurnID)
	ed.MustCall(schema.MethodSessionRename, schema.SessionRenameParams{SessionID: snap.SessionID, Title: "Editor work"}, nil)
	var status schema.DaemonStatus
	ed.MustCall(schema.MethodDaemonStatus, struct{}{}, &status)

	var environ []string
	for _, kv := range env.Environ() {
		if !strings.HasPrefix(kv, "SCV_NO_DAEMON=") {
			environ = append(environ, kv)
		}
	}
	a := startAgentEnv(t, env, environ, "--daemon=required", "--socket", status.Socket)
	a.initialize()
	a.request(1, "session/list", map[string]any{})
	if list := a.response(1); !strings.Contains(list.raw, `"title":"Editor work"`) {
		t.Fatalf("session/list lacks the stored title: %s", list.raw)
	}
	a.request(2, "session/load", map[string]any{"sessionId": snap.SessionID, "cwd": env.Work, "mcpServers": []any{}})
	_, i := a.update(0, "user_message_chunk", `"text":"asked in the editor"`)
	a.update(i+1, "agent_message_chunk", `editor `)
	a.update(0, "session_info_update", `"title":"Editor work"`)
	a.result(2, nil)
}

// A session whose process died mid-turn comes back paused with its turn
// interrupted; ACP has no update for that, so session/load shows it as
// an agent message the user reads.
func TestLoadingAnInterruptedSessionTellsTheUser(t *testing.T) {
	t.Parallel()
	env := lsptest.NewEnv(t, lsptest.Binary{})
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	env.OpenAI.Enqueue(fakeopenai.Reply{Chunks: []string{"partial"}, Hold: hold})
	a := startAgent(t, env, "--daemon=never")
	a.initialize()
	sid := a.newSession(1, env.Work)
	a.request(2, "session/prompt", prompt(sid, "long question"))
	a.update(0, "agent_message_chunk", `"text":"partial"`)
	if err := a.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}

	b := startAgent(t, env, "--daemon=never")
	b.initialize()
	b.request(1, "session/load", map[string]any{"sessionId": sid, "cwd": env.Work, "mcpServers": []any{}})
	_, i := b.update(0, "user_message_chunk", `"text":"long question"`)
	b.update(i+1, "agent_message_chunk", `[scv] This session was restored`, `interrupted`, `paused`)
	b.result(1, nil)
}
