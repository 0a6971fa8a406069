package lsp_test

import (
	"scv/lsp/schema"
	"strings"
	"testing"

	"scv/internal/fakeopenai"
	"scv/lsp/lsptest"
	"scv/runtime/provider"
	"scv/runtime/session"
)

func TestTurnStreamsDeltasAndUsage(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		env.OpenAI.Enqueue(fakeopenai.Reply{
			Chunks: []string{"Hel", "lo, ", "world"},
			Usage:  &provider.Usage{InputTokens: 11, OutputTokens: 3},
		})
		ed := connect(t, env)
		snap := ed.StartSession("", nil)
		if snap.Cwd != env.Work || snap.State != "idle" || snap.Seq != 0 || snap.Model != lsptest.TestModel {
			t.Fatalf("snapshot = %+v, want cwd %s, idle, seq 0, model %s", snap, env.Work, lsptest.TestModel)
		}
		if snap.Limits.MaxPromptBytes != session.MaxPromptBytes || snap.Limits.ReplayEvents != session.ReplayEvents {
			t.Errorf("snapshot limits = %+v", snap.Limits)
		}

		res := ed.StartTurn(snap.SessionID, "say hello")
		if res.Status != "started" || res.TurnID == "" || res.Entry != nil {
			t.Fatalf("turn/start = %+v, want started with a turnId", res)
		}
		term := ed.ExpectTerminal(res.TurnID, schema.EvTurnCompleted)

		started := ed.AwaitNotification(schema.EvTurnStarted, lsptest.ForTurn(res.TurnID), 0)
		if started.Seq != 1 {
			t.Errorf("the session's first event has seq %d, want 1", started.Seq)
		}
		var text strings.Builder
		deltas := ed.Notes(schema.EvAssistantDelta, lsptest.ForTurn(res.TurnID))
		for _, d := range deltas {
			text.WriteString(d.Str("content"))
		}
		if text.String() != "Hello, world" || len(deltas) != 3 {
			t.Errorf("%d deltas make %q, want 3 making %q", len(deltas), text.String(), "Hello, world")
		}
		completed := ed.AwaitNotification(schema.EvAssistantCompleted, lsptest.ForTurn(res.TurnID), 0)
		if completed.Str("content") != "Hello, world" {
			t.Errorf("assistant/completed content = %q", completed.Str("content"))
		}
		if !(started.Index < deltas[0].Index && deltas[len(deltas)-1].Index < completed.Index && completed.Index < term.Index) {
			t.Errorf("events out of order: started #%d, deltas #%d..#%d, completed #%d, terminal #%d",
				started.Index, deltas[0].Index, deltas[len(deltas)-1].Index, completed.Index, term.Index)
		}
		var done struct {
			Steps int            `json:"steps"`
			Usage provider.Usage `json:"usage"`
		}
		if err := term.Decode(&done); err != nil {
			t.Fatal(err)
		}
		if done.Steps != 1 || done.Usage != (provider.Usage{InputTokens: 11, OutputTokens: 3}) {
			t.Errorf("turn/completed = %s, want steps 1 and usage 11/3", term.Params)
		}

		reqs, err := env.OpenAI.WaitRequests(1, env.Timeout)
		if err != nil {
			t.Fatal(err)
		}
		req := reqs[0]
		if req.Path != "/v1/chat/completions" || !req.Stream || req.StreamOptions == nil || !req.StreamOptions.IncludeUsage {
			t.Errorf("request %s stream=%v stream_options=%+v, want a streamed chat completion with include_usage", req.Path, req.Stream, req.StreamOptions)
		}
		if req.Model != lsptest.TestModel {
			t.Errorf("model = %q, want %q", req.Model, lsptest.TestModel)
		}
		if got := req.Header.Get("Authorization"); got != "Bearer "+lsptest.TestAPIKey {
			t.Errorf("Authorization = %q", got)
		}
		names := map[string]bool{}
		for _, tool := range req.Tools {
			names[tool.Function.Name] = true
		}
		for _, want := range []string{"read_file", "write_file", "edit_file", "shell"} {
			if !names[want] {
				t.Errorf("request offers tools %v, missing %s", names, want)
			}
		}
		if len(req.Messages) < 2 || req.Messages[0].Role != "system" || !strings.Contains(req.Messages[0].Content, env.Work) {
			t.Fatalf("messages = %+v, want a system prompt naming %s first", req.Messages, env.Work)
		}
		if last := req.Messages[len(req.Messages)-1]; last.Role != "user" || !strings.Contains(last.Content, "say hello") {
			t.Errorf("last message = %+v, want the user's prompt", last)
		}
	})
}

func TestContextAttachmentsReachTheModel(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		env.WriteFile("src/main.go", "package main\n\nfunc main() {}\n")
		env.WriteFile("src/lines.txt", "line zero\nline one\nline two\nline three\n")
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		var res session.TurnStart
		ed.MustCall("scv/turn/start", map[string]any{
			"sessionId": sid, "prompt": "explain",
			"context": []map[string]any{
				{"uri": "file://" + env.Work + "/src/main.go"},
				{"uri": "file://" + env.Work + "/notes.txt", "text": "inline editor text"},
				{"uri": "file://" + env.Work + "/src/lines.txt", "range": map[string]any{
					"start": map[string]any{"line": 1, "character": 0}, "end": map[string]any{"line": 2, "character": 0}}},
			},
		}, &res)
		ed.ExpectTerminal(res.TurnID, schema.EvTurnCompleted)
		reqs, err := env.OpenAI.WaitRequests(1, env.Timeout)
		if err != nil {
			t.Fatal(err)
		}
		user := reqs[0].Messages[len(reqs[0].Messages)-1].Content
		for _, want := range []string{"func main() {}", "inline editor text", "line one\nline two", "explain"} {
			if !strings.Contains(user, want) {
				t.Errorf("user message %q lacks %q", user, want)
			}
		}
		for _, not := range []string{"line zero", "line three"} {
			if strings.Contains(user, not) {
				t.Errorf("user message %q holds %q, outside the range", user, not)
			}
		}
		if strings.Index(user, "explain") < strings.Index(user, "inline editor text") {
			t.Errorf("the prompt comes before its attachments: %q", user)
		}
	})
}

func TestProviderFailuresFailTheTurn(t *testing.T) {
	cases := []struct {
		name     string
		retries  int
		replies  []fakeopenai.Reply
		code     string // "" accepts any provider_* code
		requests int
	}{
		{"5xx beyond retries", 1, []fakeopenai.Reply{{Status: 500}, {Status: 503}}, string(provider.CodeUnavailable), 2},
		{"401", 0, []fakeopenai.Reply{{Status: 401}}, string(provider.CodeAuth), 1},
		{"garbage body", 0, []fakeopenai.Reply{{Body: "data: {this is not json\n\n"}}, string(provider.CodeError), 1},
		{"close mid-stream", 0, []fakeopenai.Reply{{Chunks: []string{"par", "tial"}, CloseAfterChunks: 1}}, "", 1},
		{"close before any event", 0, []fakeopenai.Reply{{CloseImmediately: true}}, "", 1},
		{"missing [DONE]", 0, []fakeopenai.Reply{{Chunks: []string{"cut"}, OmitDone: true}}, string(provider.CodeError), 1},
	}
	each(t, func(t *testing.T, env *lsptest.Env) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				env := lsptest.NewEnv(t, env.Dialer)
				env.Set("provider", "max_retries", tc.retries)
				env.OpenAI.Enqueue(tc.replies...)
				ed := connect(t, env)
				sid := ed.StartSession("", nil).SessionID
				turn := ed.StartTurn(sid, "hello").TurnID
				failed := ed.ExpectTerminal(turn, schema.EvTurnFailed)
				code := failed.Str("code")
				if (tc.code != "" && code != tc.code) || !strings.HasPrefix(code, "provider_") {
					t.Errorf("turn/failed code = %q, want %q", code, tc.code)
				}
				if msg := failed.Str("message"); msg == "" || strings.Contains(msg, lsptest.TestAPIKey) {
					t.Errorf("turn/failed message = %q: empty or leaks the key", msg)
				}
				if got := len(env.OpenAI.Requests()); got != tc.requests {
					t.Errorf("the provider got %d requests, want %d", got, tc.requests)
				}
				// The session is still usable.
				env.OpenAI.Enqueue(fakeopenai.Reply{Chunks: []string{"fine"}})
				ed.ExpectTerminal(ed.StartTurn(sid, "again").TurnID, schema.EvTurnCompleted)
			})
		}
	})
}

func TestMaxStepsFailsTheTurn(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		env.Set("agent", "max_steps", 2)
		listDir := func(id string) fakeopenai.Reply {
			return fakeopenai.Reply{ToolCalls: []provider.ToolCall{{ID: id, Name: "list_dir", Arguments: `{"path":"."}`}}}
		}
		env.OpenAI.Enqueue(listDir("call_1"), listDir("call_2"), listDir("call_3"))
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		turn := ed.StartTurn(sid, "loop forever").TurnID
		failed := ed.ExpectTerminal(turn, schema.EvTurnFailed)
		if failed.Str("code") != "max_steps" {
			t.Errorf("turn/failed = %s, want code max_steps", failed.Params)
		}
		if got := len(env.OpenAI.Requests()); got != 2 {
			t.Errorf("the provider got %d requests, want 2 (agent.max_steps)", got)
		}
		if n := len(ed.Notes(schema.EvToolCompleted, lsptest.ForTurn(turn))); n != 2 {
			t.Errorf("%d tool/completed, want 2", n)
		}
	})
}

func TestNoAPIKeyRefusesSessionStart(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		// A loopback endpoint needs no key, so point at a remote one.
		env.Set("provider", "base_url", "https://api.example.com/v1")
		env.Unset("provider", "api_key")
		ed := connect(t, env)
		_, err := ed.TryStartSession("", nil)
		e := lsptest.ExpectError(t, err, -32000, "provider_not_configured")
		if !strings.Contains(e.Message, "provider.api_key_env") || !strings.Contains(e.Message, "config.toml") {
			t.Errorf("message %q should name provider.api_key_env and the file to edit", e.Message)
		}
		var list struct {
			Sessions []session.Summary `json:"sessions"`
		}
		ed.MustCall("scv/session/list", nil, &list)
		if len(list.Sessions) != 0 {
			t.Errorf("a refused start left sessions %+v", list.Sessions)
		}
	})
}

func TestOversizedEventFailsTurnNotConnection(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		const limit = 4096
		env.Set("protocol", "max_server_frame_bytes", limit)
		env.OpenAI.Enqueue(fakeopenai.Reply{Chunks: []string{"small", strings.Repeat("x", 2*limit)}})
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		turn := ed.StartTurn(sid, "say a lot").TurnID
		failed := ed.ExpectTerminal(turn, schema.EvTurnFailed)
		if failed.Str("code") != "response_limit" {
			t.Errorf("turn/failed = %s, want code response_limit", failed.Params)
		}
		for _, n := range ed.Notes("", nil) {
			if len(n.Params) > limit {
				t.Errorf("%s has params of %d bytes, over the %d-byte frame limit", n.Method, len(n.Params), limit)
			}
		}
		// The connection and the session still work.
		ed.ExpectTerminal(ed.StartTurn(sid, "short please").TurnID, schema.EvTurnCompleted)
	})
}

func TestSessionStartOverrides(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		ed := connect(t, env)
		snap := ed.StartSession("", &schema.SessionStartParams{Model: "override-model", NoTools: true})
		if snap.Model != "override-model" {
			t.Errorf("snapshot model = %q", snap.Model)
		}
		ed.ExpectTerminal(ed.StartTurn(snap.SessionID, "hi").TurnID, schema.EvTurnCompleted)
		reqs, err := env.OpenAI.WaitRequests(1, env.Timeout)
		if err != nil {
			t.Fatal(err)
		}
		if reqs[0].Model != "override-model" || len(reqs[0].Tools) != 0 {
			t.Errorf("request model %q with %d tools, want override-model and none", reqs[0].Model, len(reqs[0].Tools))
		}
	})
}

func TestConcurrentSessionsKeepTheirOwnSeq(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		chunks := make([]string, 200)
		for i := range chunks {
			chunks[i] = "w "
		}
		const sessions = 3
		for range sessions {
			env.OpenAI.Enqueue(fakeopenai.Reply{Chunks: chunks})
		}
		ed := connect(t, env)
		var turns []string
		for range sessions {
			sid := ed.StartSession("", nil).SessionID
			turns = append(turns, ed.StartTurn(sid, "talk").TurnID)
		}
		for _, turn := range turns {
			ed.ExpectTerminal(turn, schema.EvTurnCompleted)
			if n := len(ed.Notes(schema.EvAssistantDelta, lsptest.ForTurn(turn))); n != len(chunks) {
				t.Errorf("turn %s: %d deltas, want %d", turn, n, len(chunks))
			}
		}
		// The editor's invariants check each session's seq when it closes.
		ed.CheckInvariants()
	})
}
