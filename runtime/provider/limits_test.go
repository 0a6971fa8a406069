package provider_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"scv/internal/fakeopenai"
	"scv/runtime/provider"
)

func limitedRequest(maxResponse, maxCall int) provider.Request {
	req := simpleRequest()
	req.Limits = provider.Limits{MaxResponseBytes: maxResponse, MaxToolCallBytes: maxCall}
	return req
}

func TestOpenAIStopsAtTheResponseCapAndKeepsWhatFit(t *testing.T) {
	srv := fakeopenai.New(t)
	srv.Enqueue(fakeopenai.Reply{Chunks: []string{"0123456789", "0123456789", "0123456789"}})
	deltas, resp, err := collect(context.Background(), newOpenAI(t, srv.URL(), nil), limitedRequest(25, 10))
	wantCode(t, err, provider.CodeResponseLimit)
	if len(deltas) != 2 || resp.Content != "01234567890123456789" {
		t.Fatalf("deltas %q, content %q: want the two chunks that fit", deltas, resp.Content)
	}
}

// A response over its limits is the model's doing: another attempt would
// get the same, so none is made.
func TestOpenAIDoesNotRetryAToolCallOverItsCap(t *testing.T) {
	srv := fakeopenai.New(t)
	huge := provider.ToolCall{ID: "c1", Name: "write_file", Arguments: `{"content":"` + strings.Repeat("x", 100) + `"}`}
	srv.Enqueue(fakeopenai.Reply{ToolCalls: []provider.ToolCall{huge}}, fakeopenai.Reply{ToolCalls: []provider.ToolCall{huge}})
	_, _, err := collect(context.Background(), newOpenAI(t, srv.URL(), nil), limitedRequest(1000, 64))
	if e := wantCode(t, err, provider.CodeResponseLimit); !strings.Contains(e.Message, "provider.max_tool_call_bytes") {
		t.Fatalf("message %q does not name the key", e.Message)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d requests, want 1", n)
	}
}

func TestOpenAIBoundsTheNumberOfToolCalls(t *testing.T) {
	srv := fakeopenai.New(t)
	var calls []provider.ToolCall
	for i := range provider.MaxToolCalls + 1 {
		calls = append(calls, provider.ToolCall{ID: fmt.Sprintf("c%d", i), Name: "list_dir", Arguments: "{}"})
	}
	srv.Enqueue(fakeopenai.Reply{ToolCalls: calls})
	_, _, err := collect(context.Background(), newOpenAI(t, srv.URL(), nil), simpleRequest())
	wantCode(t, err, provider.CodeResponseLimit)
}

func TestReplayIsHeldToTheSameLimits(t *testing.T) {
	cases := []struct {
		name, script, key string
	}{
		{"text", `{"text":"0123456789","repeat":1000000}`, "provider.max_response_bytes"},
		{"tool call", `{"tool_call":{"name":"write_file","arguments":{"content":"` + strings.Repeat("x", 100) + `"}}}`, "provider.max_tool_call_bytes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			resp, err := mustReplay(t, tc.script).Stream(context.Background(), limitedRequest(1000, 64), func(string) error {
				n++
				return nil
			})
			if e := wantCode(t, err, provider.CodeResponseLimit); !strings.Contains(e.Message, tc.key) {
				t.Fatalf("message %q does not name %s", e.Message, tc.key)
			}
			if len(resp.Content) > 1000 || n > 100 || len(resp.ToolCalls) != 0 {
				t.Fatalf("%d deltas, %d bytes and %d calls kept past the limit", n, len(resp.Content), len(resp.ToolCalls))
			}
		})
	}
}
