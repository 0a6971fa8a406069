package provider_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"scv/internal/fakeopenai"
	"scv/runtime/provider"
)

const (
	testKey    = "sk-test-SECRET-0123456789"
	testHeader = "header-secret-abcdef"
	waitBound  = 10 * time.Second
)

func newOpenAI(t *testing.T, baseURL string, mod func(*provider.OpenAIOptions)) *provider.OpenAI {
	t.Helper()
	opts := provider.OpenAIOptions{
		BaseURL:        baseURL,
		APIKey:         testKey,
		Model:          "test-model",
		Headers:        map[string]string{"X-Custom": testHeader},
		MaxRetries:     2,
		RetryBaseDelay: time.Millisecond,
	}
	if mod != nil {
		mod(&opts)
	}
	p, err := provider.NewOpenAI(opts)
	if err != nil {
		t.Fatalf("NewOpenAI: %v", err)
	}
	t.Cleanup(p.CloseIdleConnections)
	return p
}

func simpleRequest() provider.Request {
	return provider.Request{Messages: []provider.Message{{Role: provider.RoleUser, Content: "hi"}}}
}

// collect streams req and returns the deltas, the response and the error.
func collect(ctx context.Context, p provider.Provider, req provider.Request) ([]string, provider.Response, error) {
	var deltas []string
	resp, err := p.Stream(ctx, req, func(s string) error {
		deltas = append(deltas, s)
		return nil
	})
	return deltas, resp, err
}

func wantCode(t *testing.T, err error, code provider.Code) *provider.Error {
	t.Helper()
	var perr *provider.Error
	if !errors.As(err, &perr) {
		t.Fatalf("error %v (%T) is not a *provider.Error", err, err)
	}
	if perr.Code != code {
		t.Fatalf("code = %s, want %s (error: %v)", perr.Code, code, err)
	}
	for _, secret := range []string{testKey, testHeader} {
		if strings.Contains(err.Error(), secret) {
			t.Fatalf("error leaks a secret: %v", err)
		}
	}
	return perr
}

func TestOpenAIStreamsText(t *testing.T) {
	srv := fakeopenai.New(t)
	srv.Enqueue(fakeopenai.Reply{
		Chunks: []string{"Hel", "lo", ", wor", "ld"},
		Usage:  &provider.Usage{InputTokens: 12, OutputTokens: 4},
	})
	p := newOpenAI(t, srv.URL(), nil)

	deltas, resp, err := collect(context.Background(), p, simpleRequest())
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if want := []string{"Hel", "lo", ", wor", "ld"}; !reflect.DeepEqual(deltas, want) {
		t.Errorf("deltas = %q, want %q", deltas, want)
	}
	if resp.Content != "Hello, world" || resp.FinishReason != "stop" || len(resp.ToolCalls) != 0 {
		t.Errorf("response = %+v", resp)
	}
	if resp.Usage != (provider.Usage{InputTokens: 12, OutputTokens: 4}) {
		t.Errorf("usage = %+v", resp.Usage)
	}
}

func TestOpenAIAssemblesParallelToolCalls(t *testing.T) {
	srv := fakeopenai.New(t)
	calls := []provider.ToolCall{
		{ID: "call_a", Name: "read_file", Arguments: `{"path":"src/main.go","start":1}`},
		{ID: "call_b", Name: "edit_file", Arguments: `{"path":"notes.md","old":"TODO","new":"done ✓"}`},
	}
	srv.Enqueue(fakeopenai.Reply{Chunks: []string{"Let me look."}, ToolCalls: calls})
	p := newOpenAI(t, srv.URL(), nil)

	_, resp, err := collect(context.Background(), p, simpleRequest())
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if !reflect.DeepEqual(resp.ToolCalls, calls) {
		t.Errorf("tool calls = %+v, want %+v", resp.ToolCalls, calls)
	}
	if resp.FinishReason != "tool_calls" || resp.Content != "Let me look." {
		t.Errorf("response = %+v", resp)
	}
}

func TestOpenAISendsRequestShapeAndHeaders(t *testing.T) {
	srv := fakeopenai.New(t)
	p := newOpenAI(t, srv.URL(), nil)
	req := provider.Request{
		Model: "override-model",
		Messages: []provider.Message{
			{Role: provider.RoleSystem, Content: "be brief"},
			{Role: provider.RoleUser, Content: "edit it"},
			{Role: provider.RoleAssistant, ToolCalls: []provider.ToolCall{{ID: "c1", Name: "edit_file", Arguments: `{"a":1}`}}},
			{Role: provider.RoleTool, ToolCallID: "c1", Content: "edited"},
		},
		Tools: []provider.ToolSpec{{
			Name: "edit_file", Description: "Edit a file",
			Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`),
		}},
	}
	if _, _, err := collect(context.Background(), p, req); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	got := reqs[0]
	if got.Path != "/v1/chat/completions" || got.Model != "override-model" || !got.Stream {
		t.Errorf("path %q model %q stream %v", got.Path, got.Model, got.Stream)
	}
	if got.StreamOptions == nil || !got.StreamOptions.IncludeUsage {
		t.Errorf("stream_options = %+v, want include_usage", got.StreamOptions)
	}
	if h := got.Header.Get("Authorization"); h != "Bearer "+testKey {
		t.Errorf("Authorization = %q", h)
	}
	if h := got.Header.Get("X-Custom"); h != testHeader {
		t.Errorf("X-Custom = %q", h)
	}
	if len(got.Messages) != 4 || got.Messages[2].ToolCalls[0].Function.Name != "edit_file" ||
		got.Messages[3].ToolCallID != "c1" || got.Messages[3].Role != "tool" {
		t.Errorf("messages = %+v", got.Messages)
	}
	if len(got.Tools) != 1 || got.Tools[0].Type != "function" || got.Tools[0].Function.Name != "edit_file" ||
		!strings.Contains(string(got.Tools[0].Function.Parameters), `"path"`) {
		t.Errorf("tools = %+v", got.Tools)
	}

	// Without Request.Model the configured model is used.
	if _, _, err := collect(context.Background(), p, simpleRequest()); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if m := srv.Requests()[1].Model; m != "test-model" {
		t.Errorf("model = %q, want test-model", m)
	}
}

func TestNewOpenAIRejectsBadOptions(t *testing.T) {
	cases := []struct {
		name string
		opts provider.OpenAIOptions
		want string
	}{
		{"scheme", provider.OpenAIOptions{BaseURL: "ftp://host/v1"}, "base_url"},
		{"no host", provider.OpenAIOptions{BaseURL: "http:///v1"}, "base_url"},
		{"header name", provider.OpenAIOptions{Headers: map[string]string{"Bad Name": "x"}}, `"Bad Name"`},
		{"header value", provider.OpenAIOptions{Headers: map[string]string{"X-A": "a\r\nb"}}, `"X-A"`},
		{"timeout", provider.OpenAIOptions{Timeout: -time.Second}, "timeout"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := provider.NewOpenAI(tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want mention of %s", err, tc.want)
			}
		})
	}
}

func TestOpenAIRequiresModel(t *testing.T) {
	srv := fakeopenai.New(t)
	p := newOpenAI(t, srv.URL(), func(o *provider.OpenAIOptions) { o.Model = "" })
	_, _, err := collect(context.Background(), p, simpleRequest())
	wantCode(t, err, provider.CodeError)
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests, want 0", n)
	}
}
