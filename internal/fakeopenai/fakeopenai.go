// Package fakeopenai is an OpenAI-compatible chat-completions server for
// tests. It answers POST /v1/chat/completions with scripted replies streamed
// as real server-sent events, and records every request it received.
package fakeopenai

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"scv/runtime/provider"
)

// DefaultText is streamed when no reply is queued.
const DefaultText = "ok"

// maxRequestBytes bounds a recorded request body.
const maxRequestBytes = 32 << 20

// Reply scripts one answer. The zero value streams nothing but the
// terminator; fields combine in the order they are listed.
type Reply struct {
	// Status, when neither 0 nor 200, answers with that status and an
	// OpenAI-style error body (or Body when set).
	Status int
	// Body, when set, is written verbatim instead of an event stream.
	Body string
	// Headers are added to the response.
	Headers map[string]string

	// Reasoning is streamed first, as reasoning deltas, one event each,
	// named reasoning_content (DeepSeek, vLLM) or, with ReasoningField
	// "reasoning", as Ollama and OpenRouter name it.
	Reasoning      []string
	ReasoningField string
	// Chunks are streamed as content deltas, one event each.
	Chunks []string
	// CloseAfterChunks > 0 hijacks and closes the connection after that
	// many chunks were flushed, mimicking a dropped connection.
	CloseAfterChunks int
	// CloseImmediately closes the connection right after the response
	// headers, before any event.
	CloseImmediately bool
	// Hold, when non-nil, blocks after the chunks until it is closed, the
	// client goes away or the server closes.
	Hold chan struct{}
	// ToolCalls are streamed after the chunks, each split over several
	// deltas with their arguments interleaved by index.
	ToolCalls []provider.ToolCall
	// FinishReason defaults to "tool_calls" or "stop".
	FinishReason string
	// Usage is sent in a final chunk with empty choices when the request
	// asked for it with stream_options.include_usage.
	Usage *provider.Usage
	// OmitDone leaves out the closing "data: [DONE]".
	OmitDone bool
}

// RecordedRequest is one request as the server saw it.
type RecordedRequest struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
	// Decoded from Body; DecodeError is set when that failed.
	Model         string
	Messages      []Message
	Tools         []Tool
	Stream        bool
	StreamOptions *StreamOptions
	DecodeError   string
}

// Message is a chat message as sent on the wire.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls"`
	ToolCallID string     `json:"tool_call_id"`
}

// ToolCall is an assistant tool call as sent on the wire.
type ToolCall struct {
	ID       string   `json:"id"`
	Type     string   `json:"type"`
	Function Function `json:"function"`
}

// Function is the function part of a tool call.
type Function struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Tool is a tool definition as sent on the wire.
type Tool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// StreamOptions mirrors the request's stream_options.
type StreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// Server is a running fake endpoint.
type Server struct {
	srv *httptest.Server

	mu       sync.Mutex
	queue    []Reply
	requests []RecordedRequest
	changed  chan struct{} // closed and replaced whenever requests grows

	closing   chan struct{}
	closeOnce sync.Once

	models models
}

// New starts a server that is closed when t ends.
func New(t testing.TB) *Server {
	t.Helper()
	s := Start()
	t.Cleanup(s.Close)
	return s
}

// Start starts a server; the caller must Close it.
func Start() *Server {
	s := &Server{changed: make(chan struct{}), closing: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	return s
}

// Close releases held replies and stops the server, waiting for handlers.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.closing)
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
}

// URL is the base URL clients should use, ending in /v1.
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Enqueue appends replies to the FIFO answered by later requests.
func (s *Server) Enqueue(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, replies...)
}

// Pending reports how many queued replies are still unused.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// Requests returns a copy of every request received so far.
func (s *Server) Requests() []RecordedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]RecordedRequest(nil), s.requests...)
}

// WaitRequests waits until at least n requests arrived or timeout passed.
func (s *Server) WaitRequests(n int, timeout time.Duration) ([]RecordedRequest, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		got, changed := len(s.requests), s.changed
		if got >= n {
			out := append([]RecordedRequest(nil), s.requests...)
			s.mu.Unlock()
			return out, nil
		}
		s.mu.Unlock()
		select {
		case <-changed:
		case <-deadline.C:
			return s.Requests(), fmt.Errorf("fakeopenai: %d of %d requests arrived within %s", got, n, timeout)
		}
	}
}

func (s *Server) record(r *http.Request) (RecordedRequest, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBytes))
	rec := RecordedRequest{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	if err != nil {
		rec.DecodeError = "read body: " + err.Error()
	} else {
		var wire struct {
			Model         string         `json:"model"`
			Messages      []Message      `json:"messages"`
			Tools         []Tool         `json:"tools"`
			Stream        bool           `json:"stream"`
			StreamOptions *StreamOptions `json:"stream_options"`
		}
		if err := json.Unmarshal(body, &wire); err != nil {
			rec.DecodeError = err.Error()
		} else {
			rec.Model, rec.Messages, rec.Tools = wire.Model, wire.Messages, wire.Tools
			rec.Stream, rec.StreamOptions = wire.Stream, wire.StreamOptions
		}
	}
	s.mu.Lock()
	s.requests = append(s.requests, rec)
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
	if rec.DecodeError != "" {
		return rec, errors.New(rec.DecodeError)
	}
	return rec, nil
}

func (s *Server) next() Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queue) == 0 {
		return Reply{Chunks: []string{DefaultText}, Usage: &provider.Usage{InputTokens: 1, OutputTokens: 1}}
	}
	r := s.queue[0]
	s.queue = s.queue[1:]
	return r
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/v1/models" {
		// Kept apart from the chat requests, which tests count.
		s.serveModels(w, r)
		return
	}
	rec, decodeErr := s.record(r)
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no route for %s %s", r.Method, r.URL.Path))
		return
	}
	if decodeErr != nil {
		writeError(w, http.StatusBadRequest, "invalid JSON body: "+decodeErr.Error())
		return
	}
	reply := s.next()
	for name, value := range reply.Headers {
		w.Header().Set(name, value)
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		if reply.Body != "" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(reply.Status)
			_, _ = io.WriteString(w, reply.Body)
			return
		}
		writeError(w, reply.Status, fmt.Sprintf("scripted failure with status %d", reply.Status))
		return
	}
	if reply.Body != "" {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, reply.Body)
		return
	}
	includeUsage := rec.StreamOptions != nil && rec.StreamOptions.IncludeUsage
	s.stream(w, r, reply, rec.Model, includeUsage)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	typ := "invalid_request_error"
	if status >= 500 {
		typ = "server_error"
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"error": map[string]any{"message": msg, "type": typ, "code": nil},
	})
}
