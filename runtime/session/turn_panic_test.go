package session

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"scv/runtime/config"
	"scv/runtime/provider"
	"scv/runtime/tools"
)

// waitingRecorder is a Subscriber that turn goroutines may call while the
// test waits for an event.
type waitingRecorder struct {
	mu      sync.Mutex
	events  []Event
	at      []time.Time // when each event arrived
	changed chan struct{}
}

func newWaitingRecorder() *waitingRecorder {
	return &waitingRecorder{changed: make(chan struct{})}
}

func (r *waitingRecorder) Deliver(ev Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
	r.at = append(r.at, time.Now())
	close(r.changed)
	r.changed = make(chan struct{})
}

// waitFor returns, as JSON members, the n-th (1-based) event whose payload
// has kind's type.
func (r *waitingRecorder) waitFor(t testing.TB, kind Payload, n int) map[string]any {
	t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		seen := 0
		for _, ev := range r.events {
			if reflect.TypeOf(ev.Payload) != reflect.TypeOf(kind) {
				continue
			}
			if seen++; seen == n {
				r.mu.Unlock()
				data, err := json.Marshal(ev.Payload)
				if err != nil {
					t.Fatal(err)
				}
				var params map[string]any
				if err := json.Unmarshal(data, &params); err != nil {
					t.Fatal(err)
				}
				return params
			}
		}
		changed := r.changed
		r.mu.Unlock()
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("no %T #%d arrived", kind, n)
		}
	}
}

// scriptedProvider answers each request with the next function.
type scriptedProvider struct {
	mu       sync.Mutex
	answers  []func(provider.Request) provider.Response
	requests []provider.Request
}

func (p *scriptedProvider) Stream(_ context.Context, req provider.Request, onDelta func(string) error) (provider.Response, error) {
	p.mu.Lock()
	p.requests = append(p.requests, req)
	answer := p.answers[0]
	p.answers = p.answers[1:]
	p.mu.Unlock()
	resp := answer(req)
	if resp.Content != "" {
		if err := onDelta(resp.Content); err != nil {
			return resp, err
		}
	}
	return resp, nil
}

func (p *scriptedProvider) lastRequest() provider.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.requests[len(p.requests)-1]
}

func answerText(text string) func(provider.Request) provider.Response {
	return func(provider.Request) provider.Response { return provider.Response{Content: text} }
}

// panickingTool is a tool whose Run panics, as a buggy tool would.
type panickingTool struct{}

func (panickingTool) Name() string                   { return "boom" }
func (panickingTool) Description() string            { return "panics" }
func (panickingTool) Parameters() json.RawMessage    { return json.RawMessage(`{"type":"object"}`) }
func (panickingTool) Risk() tools.Risk               { return tools.RiskReadOnly }
func (panickingTool) Summary(json.RawMessage) string { return "boom" }
func (panickingTool) Run(context.Context, json.RawMessage) tools.Result {
	var m map[string]int
	m["x"] = 1 // a nil map write: a runtime panic
	return tools.Result{}
}

func turnSession(t *testing.T, prov provider.Provider, registry *tools.Registry) (*Session, *waitingRecorder, *bytes.Buffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	rec := newWaitingRecorder()
	var logBuf bytes.Buffer
	s := &Session{
		id:              "s1",
		cfg:             config.Defaults(),
		limits:          Limits{MaxServerFrameBytes: 1 << 20},
		provider:        prov,
		registry:        registry,
		log:             slog.New(slog.NewTextHandler(&lockedWriter{w: &logBuf}, nil)),
		ctx:             ctx,
		cancel:          cancel,
		subs:            map[Subscriber]struct{}{rec: {}},
		subList:         []Subscriber{rec},
		sessionApproved: map[string]bool{},
	}
	t.Cleanup(func() {
		cancel()
		s.turns.Wait()
	})
	return s, rec, &logBuf
}

type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func startTurn(t *testing.T, s *Session, prompt string) string {
	t.Helper()
	res, err := s.StartTurn(prompt, nil, "1")
	if err != nil || res.Status != "started" {
		t.Fatalf("start %q: %+v, %v", prompt, res, err)
	}
	return res.TurnID
}

func TestAPanickingProviderFailsTheTurnNotTheProcess(t *testing.T) {
	prov := &scriptedProvider{answers: []func(provider.Request) provider.Response{
		func(provider.Request) provider.Response { panic("provider bug") },
		answerText("still here"),
	}}
	s, rec, logBuf := turnSession(t, prov, tools.NewRegistry())
	first := startTurn(t, s, "one")
	failed := rec.waitFor(t, TurnFailed{}, 1)
	if failed["turnId"] != first || failed["code"] != "internal" {
		t.Fatalf("turn/failed = %v", failed)
	}
	s.turns.Wait()
	log := logBuf.String()
	if !strings.Contains(log, "provider bug") || !strings.Contains(log, "turn_panic_test.go") {
		t.Fatalf("the log lacks the panic and its stack:\n%s", log)
	}
	second := startTurn(t, s, "two")
	done := rec.waitFor(t, TurnCompleted{}, 1)
	if done["turnId"] != second {
		t.Fatalf("turn/completed = %v", done)
	}
}

func TestAPanickingToolFailsTheTurnAndLeavesTheHistoryWhole(t *testing.T) {
	prov := &scriptedProvider{answers: []func(provider.Request) provider.Response{
		func(provider.Request) provider.Response {
			return provider.Response{ToolCalls: []provider.ToolCall{
				{ID: "c1", Name: "boom", Arguments: "{}"},
				{ID: "c2", Name: "boom", Arguments: "{}"},
			}}
		},
		answerText("recovered"),
	}}
	s, rec, _ := turnSession(t, prov, tools.NewRegistry(panickingTool{}))
	startTurn(t, s, "one")
	if failed := rec.waitFor(t, TurnFailed{}, 1); failed["code"] != "internal" {
		t.Fatalf("turn/failed = %v", failed)
	}
	s.turns.Wait()
	startTurn(t, s, "two")
	rec.waitFor(t, TurnCompleted{}, 1)
	// Every call the model made has its answer, or the endpoint would
	// refuse every later request of the session.
	answered := map[string]bool{}
	for _, m := range prov.lastRequest().Messages {
		if m.Role == provider.RoleTool {
			answered[m.ToolCallID] = true
		}
	}
	if !answered["c1"] || !answered["c2"] {
		t.Fatalf("tool calls left without a result: %v", answered)
	}
}
