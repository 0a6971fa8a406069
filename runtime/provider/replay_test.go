package provider_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"scv/runtime/provider"
)

func mustReplay(t testing.TB, script string) *provider.Replay {
	t.Helper()
	r, err := provider.NewReplay([]byte(script))
	if err != nil {
		t.Fatalf("NewReplay: %v", err)
	}
	return r
}

func msgs(roles ...provider.Role) []provider.Message {
	out := make([]provider.Message, len(roles))
	for i, r := range roles {
		out[i] = provider.Message{Role: r, Content: "x"}
	}
	return out
}

const (
	user      = provider.RoleUser
	assistant = provider.RoleAssistant
	tool      = provider.RoleTool
	system    = provider.RoleSystem
)

func TestDemoScriptPlaysTheEditTurn(t *testing.T) {
	r, err := provider.NewReplay(provider.DemoScript())
	if err != nil {
		t.Fatalf("demo script does not parse: %v", err)
	}
	ctx := context.Background()

	deltas, first, err := collect(ctx, r, provider.Request{Messages: msgs(system, user)})
	if err != nil {
		t.Fatalf("first response: %v", err)
	}
	if len(deltas) < 10 {
		t.Errorf("first response streams %d chunks, want several", len(deltas))
	}
	if len(first.ToolCalls) != 1 || first.FinishReason != "tool_calls" || first.Usage.OutputTokens == 0 {
		t.Fatalf("first response = %+v", first)
	}
	call := first.ToolCalls[0]
	wantArgs := `{"path":"notes.md","old":"TODO: write a greeting.","new":"Hello from scv! This line was written by the agent."}`
	if call.Name != "edit_file" || call.Arguments != wantArgs || call.ID == "" {
		t.Errorf("tool call = %+v", call)
	}

	_, second, err := collect(ctx, r, provider.Request{Messages: msgs(system, user, assistant, tool)})
	if err != nil {
		t.Fatalf("second response: %v", err)
	}
	if !strings.Contains(second.Content, "updated") || len(second.ToolCalls) != 0 || second.FinishReason != "stop" {
		t.Errorf("second response = %+v", second)
	}
}

func TestReplaySelectsResponseByAssistantCount(t *testing.T) {
	r := mustReplay(t, `{"text":"one"}
{"stop":true}

{"text":"two"}
{"stop":true}
{"text":"three"}
`)
	cases := []struct {
		roles []provider.Role
		want  string
	}{
		{[]provider.Role{user}, "one"},
		{[]provider.Role{system, user}, "one"},
		{[]provider.Role{user, assistant, tool}, "two"},
		{[]provider.Role{user, assistant, tool, assistant, tool}, "three"},
		{[]provider.Role{user, assistant, tool, assistant, tool, assistant}, provider.ReplayExhaustedText},
		// A new user message starts the script again.
		{[]provider.Role{user, assistant, tool, assistant, user}, "one"},
		{[]provider.Role{user, assistant, user, assistant, tool}, "two"},
	}
	for _, tc := range cases {
		_, resp, err := collect(context.Background(), r, provider.Request{Messages: msgs(tc.roles...)})
		if err != nil {
			t.Fatalf("%v: %v", tc.roles, err)
		}
		if resp.Content != tc.want {
			t.Errorf("%v: content %q, want %q", tc.roles, resp.Content, tc.want)
		}
	}
}

func TestReplayRepeatToolCallsAndUsage(t *testing.T) {
	r := mustReplay(t, `{"text":"ab","repeat":5}
{"tool_call":{"id":"c1","name":"read_file","arguments":"{\"path\": \"a.txt\"}"}}
{"tool_call":{"name":"list_dir"}}
{"usage":{"input_tokens":10,"output_tokens":20}}`)
	deltas, resp, err := collect(context.Background(), r, provider.Request{Messages: msgs(user)})
	if err != nil {
		t.Fatal(err)
	}
	if len(deltas) != 5 || resp.Content != "ababababab" {
		t.Errorf("deltas %q content %q", deltas, resp.Content)
	}
	if len(resp.ToolCalls) != 2 || resp.ToolCalls[0].Arguments != `{"path": "a.txt"}` ||
		resp.ToolCalls[1].Arguments != "{}" || resp.ToolCalls[1].ID == "" {
		t.Errorf("tool calls = %+v", resp.ToolCalls)
	}
	if resp.Usage != (provider.Usage{InputTokens: 10, OutputTokens: 20}) {
		t.Errorf("usage = %+v", resp.Usage)
	}
}

func TestReplayErrorLine(t *testing.T) {
	r := mustReplay(t, `{"text":"partial "}
{"error":{"code":"provider_unavailable","message":"scripted outage"}}
{"text":"never sent"}`)
	deltas, resp, err := collect(context.Background(), r, provider.Request{Messages: msgs(user)})
	var perr *provider.Error
	if !errors.As(err, &perr) || perr.Code != provider.CodeUnavailable || perr.Message != "scripted outage" {
		t.Fatalf("err = %v", err)
	}
	if len(deltas) != 1 || resp.Content != "partial " {
		t.Errorf("deltas %q content %q", deltas, resp.Content)
	}
}

func TestReplayParseErrorsNameTheLine(t *testing.T) {
	cases := []struct {
		name, script, want string
	}{
		{"bad JSON", "{\"text\":\"a\"}\n\n{\"text\":", "line 3: invalid JSON"},
		{"unknown key", `{"txt":"a"}`, `line 1: invalid JSON: json: unknown field "txt"`},
		{"two kinds", `{"text":"a","stop":true}`, "line 1: want exactly one"},
		{"no kind", `{}`, "line 1: want exactly one"},
		{"repeat zero", `{"text":"a","repeat":0}`, `line 1: "repeat" must be between`},
		{"repeat alone", "{\"text\":\"a\"}\n{\"repeat\":2,\"stop\":true}", `line 2: "repeat" is only allowed`},
		{"empty text", `{"text":""}`, `line 1: "text" must not be empty`},
		{"empty reasoning", `{"reasoning":""}`, `line 1: "reasoning" must not be empty`},
		{"tool without name", `{"tool_call":{"id":"x"}}`, `line 1: "tool_call.name" is required`},
		{"array arguments", `{"tool_call":{"name":"x","arguments":[1]}}`, `line 1: "tool_call.arguments"`},
		{"string arguments not JSON", `{"tool_call":{"name":"x","arguments":"{oops"}}`, `line 1: "tool_call.arguments"`},
		{"bad code", `{"error":{"code":"nope"}}`, `line 1: "error.code" "nope"`},
		{"negative usage", `{"usage":{"input_tokens":-1}}`, `line 1: "usage"`},
		{"stop false", `{"stop":false}`, `line 1: "stop" must be true`},
		{"trailing data", `{"stop":true} {"stop":true}`, "line 1: unexpected data"},
		{"empty", "\n  \n", "no responses"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := provider.NewReplay([]byte(tc.script))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestReplayCancelStopsPromptly(t *testing.T) {
	r := mustReplay(t, `{"text":"x","repeat":10000000}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	resp, err := r.Stream(ctx, provider.Request{Messages: msgs(user)}, func(string) error {
		n++
		if n == 1000 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if n != 1000 || len(resp.Content) != 1000 {
		t.Errorf("%d deltas (%d bytes) after cancel at 1000", n, len(resp.Content))
	}
}

func TestReplayCallbackErrorIsReturnedUnchanged(t *testing.T) {
	r := mustReplay(t, `{"text":"x","repeat":3}`)
	stop := errors.New("stop")
	_, err := r.Stream(context.Background(), provider.Request{}, func(string) error { return stop })
	if err != stop {
		t.Fatalf("err = %v", err)
	}
}

func BenchmarkReplay100kDeltas(b *testing.B) {
	r := mustReplay(b, `{"text":"tok ","repeat":100000}`)
	req := provider.Request{Messages: msgs(user)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		if _, err := r.Stream(ctx, req, func(string) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
		if n != 100000 {
			b.Fatalf("%d deltas", n)
		}
	}
}
