package provider_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
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

func TestOpenAIRetriesServerErrorThenSucceeds(t *testing.T) {
	srv := fakeopenai.New(t)
	srv.Enqueue(fakeopenai.Reply{Status: 500}, fakeopenai.Reply{Status: 503}, fakeopenai.Reply{Chunks: []string{"fine"}})
	p := newOpenAI(t, srv.URL(), nil)

	deltas, resp, err := collect(context.Background(), p, simpleRequest())
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if resp.Content != "fine" || len(deltas) != 1 {
		t.Errorf("deltas %q response %+v", deltas, resp)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
}

func TestOpenAIAuthErrorIsNotRetried(t *testing.T) {
	srv := fakeopenai.New(t)
	srv.Enqueue(fakeopenai.Reply{
		Status: 401,
		Body:   `{"error":{"message":"Incorrect API key provided: ` + testKey + `","type":"invalid_request_error"}}`,
	})
	p := newOpenAI(t, srv.URL(), nil)

	_, _, err := collect(context.Background(), p, simpleRequest())
	perr := wantCode(t, err, provider.CodeAuth)
	if perr.Status != 401 || !strings.Contains(perr.Message, "Incorrect API key") {
		t.Errorf("error = %+v", perr)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestOpenAIRateLimitRetriesThenFails(t *testing.T) {
	srv := fakeopenai.New(t)
	for range 3 {
		srv.Enqueue(fakeopenai.Reply{Status: 429, Headers: map[string]string{"Retry-After": "0"}})
	}
	p := newOpenAI(t, srv.URL(), nil)

	_, _, err := collect(context.Background(), p, simpleRequest())
	if perr := wantCode(t, err, provider.CodeRateLimited); perr.Status != 429 {
		t.Errorf("status = %d", perr.Status)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d requests, want 3 (1 + MaxRetries)", n)
	}
}

func TestOpenAINegativeMaxRetriesDisablesRetry(t *testing.T) {
	srv := fakeopenai.New(t)
	srv.Enqueue(fakeopenai.Reply{Status: 502})
	p := newOpenAI(t, srv.URL(), func(o *provider.OpenAIOptions) { o.MaxRetries = -1 })

	_, _, err := collect(context.Background(), p, simpleRequest())
	wantCode(t, err, provider.CodeUnavailable)
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestOpenAIMalformedBodies(t *testing.T) {
	cases := []struct {
		name string
		body string
		want string
	}{
		{"not an event stream", "this is not an event stream\n", "without data: [DONE]"},
		{"bad JSON in event", "data: {\"choices\": [\n\n", "malformed stream data"},
		{"error event", "data: {\"error\":{\"message\":\"model overloaded\"}}\n\n", "model overloaded"},
		{"endless line", "data: " + strings.Repeat("x", 9<<20), "longer than"},
		{"plain JSON completion", `{"id":"x","choices":[{"message":{"content":"hi"}}]}`, "without data: [DONE]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeopenai.New(t)
			srv.Enqueue(fakeopenai.Reply{Body: tc.body})
			p := newOpenAI(t, srv.URL(), nil)
			_, _, err := collect(context.Background(), p, simpleRequest())
			perr := wantCode(t, err, provider.CodeError)
			if !strings.Contains(perr.Message, tc.want) {
				t.Errorf("message %q does not mention %q", perr.Message, tc.want)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("%d requests, want 1", n)
			}
		})
	}
}

func TestOpenAIConnectionDroppedMidStream(t *testing.T) {
	srv := fakeopenai.New(t)
	srv.Enqueue(fakeopenai.Reply{Chunks: []string{"one ", "two ", "three"}, CloseAfterChunks: 2})
	p := newOpenAI(t, srv.URL(), nil)

	deltas, resp, err := collect(context.Background(), p, simpleRequest())
	wantCode(t, err, provider.CodeUnavailable)
	if want := []string{"one ", "two "}; !reflect.DeepEqual(deltas, want) {
		t.Errorf("deltas = %q, want %q", deltas, want)
	}
	if resp.Content != "one two " {
		t.Errorf("partial content = %q", resp.Content)
	}
	// Text reached the user, so the request must not be replayed.
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestOpenAIConnectionDroppedBeforeTextIsRetried(t *testing.T) {
	srv := fakeopenai.New(t)
	srv.Enqueue(fakeopenai.Reply{CloseImmediately: true}, fakeopenai.Reply{Chunks: []string{"again"}})
	p := newOpenAI(t, srv.URL(), nil)

	deltas, _, err := collect(context.Background(), p, simpleRequest())
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if !reflect.DeepEqual(deltas, []string{"again"}) {
		t.Errorf("deltas = %q", deltas)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

func TestOpenAIMissingDoneIsAnError(t *testing.T) {
	srv := fakeopenai.New(t)
	srv.Enqueue(fakeopenai.Reply{Chunks: []string{"almost"}, Usage: &provider.Usage{InputTokens: 1, OutputTokens: 1}, OmitDone: true})
	p := newOpenAI(t, srv.URL(), nil)

	deltas, _, err := collect(context.Background(), p, simpleRequest())
	wantCode(t, err, provider.CodeError)
	if len(deltas) != 1 {
		t.Errorf("deltas = %q", deltas)
	}
}

func TestOpenAITimeouts(t *testing.T) {
	cases := []struct {
		name string
		mod  func(*provider.OpenAIOptions)
	}{
		{"whole request", func(o *provider.OpenAIOptions) { o.Timeout = 300 * time.Millisecond }},
		{"idle read", func(o *provider.OpenAIOptions) { o.IdleTimeout = 300 * time.Millisecond }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeopenai.New(t)
			hold := make(chan struct{})
			defer close(hold)
			srv.Enqueue(fakeopenai.Reply{Chunks: []string{"start"}, Hold: hold})
			p := newOpenAI(t, srv.URL(), tc.mod)
			deltas, _, err := collect(context.Background(), p, simpleRequest())
			wantCode(t, err, provider.CodeTimeout)
			if len(deltas) != 1 {
				t.Errorf("deltas = %q", deltas)
			}
		})
	}
}

func TestOpenAICancelWhileHeld(t *testing.T) {
	srv := fakeopenai.New(t)
	hold := make(chan struct{})
	defer close(hold)
	srv.Enqueue(fakeopenai.Reply{Chunks: []string{"first"}, Hold: hold})
	p := newOpenAI(t, srv.URL(), nil)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	firstDelta := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := p.Stream(ctx, simpleRequest(), func(string) error {
			close(firstDelta)
			return nil
		})
		done <- err
	}()
	select {
	case <-firstDelta:
	case <-time.After(waitBound):
		t.Fatal("no delta arrived")
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		var perr *provider.Error
		if errors.As(err, &perr) {
			t.Fatalf("cancel produced a *provider.Error: %v", err)
		}
	case <-time.After(waitBound):
		t.Fatal("Stream did not return after cancel")
	}
}

func TestOpenAICancelDuringBackoff(t *testing.T) {
	srv := fakeopenai.New(t)
	srv.Enqueue(fakeopenai.Reply{Status: 500})
	p := newOpenAI(t, srv.URL(), func(o *provider.OpenAIOptions) { o.RetryBaseDelay = time.Hour })

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, _, err := collect(ctx, p, simpleRequest())
		done <- err
	}()
	if _, err := srv.WaitRequests(1, waitBound); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	case <-time.After(waitBound):
		t.Fatal("Stream did not return after cancel during backoff")
	}
}

func TestOpenAICallbackErrorIsReturnedUnchanged(t *testing.T) {
	srv := fakeopenai.New(t)
	srv.Enqueue(fakeopenai.Reply{Chunks: []string{"a", "b"}})
	p := newOpenAI(t, srv.URL(), nil)
	stop := errors.New("stop here")

	_, err := p.Stream(context.Background(), simpleRequest(), func(string) error { return stop })
	if err != stop {
		t.Fatalf("err = %v, want the callback's error", err)
	}
}

func TestOpenAIConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	p := newOpenAI(t, "http://"+addr+"/v1", nil)

	_, _, err = collect(context.Background(), p, simpleRequest())
	wantCode(t, err, provider.CodeUnavailable)
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
