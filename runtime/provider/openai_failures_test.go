package provider_test

import (
	"context"
	"errors"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"scv/internal/fakeopenai"
	"scv/runtime/provider"
)

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
