package fakeopenai

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"scv/runtime/provider"
)

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// events reads the data payloads of an event stream.
func events(t *testing.T, r io.Reader) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(r)
	blank := true
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			blank = true
			continue
		}
		if !blank {
			t.Fatalf("event %q is not separated by a blank line", line)
		}
		blank = false
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("line %q is not a data line", line)
		}
		out = append(out, data)
	}
	return out
}

func TestStreamWireFormat(t *testing.T) {
	s := New(t)
	s.Enqueue(Reply{
		Chunks:    []string{"a", "b"},
		ToolCalls: []provider.ToolCall{{ID: "c1", Name: "f", Arguments: `{"k":"value"}`}},
		Usage:     &provider.Usage{InputTokens: 3, OutputTokens: 4},
	})
	resp := post(t, s.URL()+"/chat/completions",
		`{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	evs := events(t, resp.Body)
	if len(evs) == 0 || evs[len(evs)-1] != "[DONE]" {
		t.Fatalf("stream does not end with [DONE]: %q", evs)
	}
	var args strings.Builder
	var sawUsage bool
	for _, ev := range evs[:len(evs)-1] {
		var c chunk
		if err := json.Unmarshal([]byte(ev), &c); err != nil {
			t.Fatalf("event %q: %v", ev, err)
		}
		if c.Usage != nil {
			sawUsage = len(c.Choices) == 0 && c.Usage.PromptTokens == 3 && c.Usage.CompletionTokens == 4
		}
		for _, ch := range c.Choices {
			for _, tc := range ch.Delta.ToolCalls {
				if tc.Function != nil {
					args.WriteString(tc.Function.Arguments)
				}
			}
		}
	}
	if args.String() != `{"k":"value"}` {
		t.Errorf("reassembled arguments %q", args.String())
	}
	if !sawUsage {
		t.Error("no final usage chunk with empty choices")
	}
	reqs := s.Requests()
	if len(reqs) != 1 || reqs[0].Model != "m" || reqs[0].Messages[0].Content != "hi" || !reqs[0].StreamOptions.IncludeUsage {
		t.Errorf("recorded %+v", reqs)
	}
}

func TestDefaultReplyAndUnknownRoute(t *testing.T) {
	s := New(t)
	resp := post(t, s.URL()+"/chat/completions", `{"model":"m","stream":true}`)
	evs := events(t, resp.Body)
	if !strings.Contains(strings.Join(evs, "\n"), `"content":"`+DefaultText+`"`) {
		t.Errorf("default reply %q", evs)
	}
	if resp := post(t, s.URL()+"/embeddings", `{}`); resp.StatusCode != http.StatusNotFound {
		t.Errorf("status %d for unknown route", resp.StatusCode)
	}
	if resp := post(t, s.URL()+"/chat/completions", `{oops`); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("status %d for bad JSON", resp.StatusCode)
	}
	if _, err := s.WaitRequests(3, time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := s.WaitRequests(4, 10*time.Millisecond); err == nil {
		t.Error("WaitRequests(4) succeeded with 3 requests")
	}
}

func TestCloseReleasesHeldReplies(t *testing.T) {
	s := Start()
	s.Enqueue(Reply{Chunks: []string{"x"}, Hold: make(chan struct{})})
	resp, err := http.Post(s.URL()+"/chat/completions", "application/json", strings.NewReader(`{"model":"m"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := s.WaitRequests(1, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	// Close must return although the hold channel is never closed.
	s.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
}
