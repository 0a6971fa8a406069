package lsptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"scv/lsp"
	"scv/lsp/client"
	"scv/lsp/schema"
)

// Capabilities is capabilities.experimental.scv of the initialize result.
type Capabilities = lsp.Capabilities

// InitializeResult is the part of the initialize result scv defines.
type InitializeResult = lsp.InitializeResult

// Editor is a fake editor connected to one server. Its methods that end in
// a test failure must be called from the test's goroutine.
type Editor struct {
	T   testing.TB
	Env *Env
	srv Server
	c   *client.Client
	tap *tap

	mu        sync.Mutex
	frames    int // frames received, notifications and responses
	notes     []Note
	responses []Response
	changed   chan struct{} // closed and replaced whenever a frame arrives
	inv       *invariants

	closeOnce sync.Once
}

func newEditor(env *Env, srv Server) *Editor {
	e := &Editor{T: env.T, Env: env, srv: srv, changed: make(chan struct{}), inv: newInvariants()}
	e.tap = &tap{ReadWriteCloser: srv.Conn(), onFrame: e.record}
	e.c = client.New(e.tap, nil)
	return e
}

// record runs on the client's read goroutine: it only records.
func (e *Editor) record(body []byte) {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  *client.Error   `json:"error"`
	}
	err := json.Unmarshal(body, &msg)
	e.mu.Lock()
	defer e.mu.Unlock()
	index := e.frames
	e.frames++
	switch {
	case err != nil:
		e.inv.violations = append(e.inv.violations, fmt.Sprintf("frame #%d is not JSON: %q", index, body))
	case msg.Method != "" && len(msg.ID) == 0:
		note := newNote(index, msg.Method, msg.Params)
		e.notes = append(e.notes, note)
		e.inv.observe(note)
	case msg.Method != "" && !slices.Contains(schema.ClientMethods, msg.Method):
		e.inv.violations = append(e.inv.violations, fmt.Sprintf("the server sent a request: %s", body))
	case msg.Method != "":
		// A file request (scv/file/*): the client's HandleRequests answers it.
	default:
		e.responses = append(e.responses, Response{Index: index, ID: msg.ID, Result: msg.Result, Error: msg.Error})
	}
	close(e.changed)
	e.changed = make(chan struct{})
}

// Server returns the server this editor is connected to.
func (e *Editor) Server() Server { return e.srv }

// Client returns the underlying JSON-RPC client.
func (e *Editor) Client() *client.Client { return e.c }

// Call sends a request and decodes its result into result (which may be
// nil). It waits at most the Env's timeout; a server error is returned as
// a *client.Error.
func (e *Editor) Call(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), e.Env.Timeout)
	defer cancel()
	err := e.c.Call(ctx, method, params, result)
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: no reply within %s", method, e.Env.Timeout)
	}
	return err
}

// MustCall is Call that fails the test on any error.
func (e *Editor) MustCall(method string, params, result any) {
	e.T.Helper()
	if err := e.Call(method, params, result); err != nil {
		e.T.Fatalf("%s %v: %v", method, params, err)
	}
}

// Notify sends a notification.
func (e *Editor) Notify(method string, params any) {
	e.T.Helper()
	if err := e.c.Notify(method, params); err != nil {
		e.T.Fatalf("notify %s: %v", method, err)
	}
}

// WriteFrame sends body, as is, in one LSP frame.
func (e *Editor) WriteFrame(body string) {
	e.T.Helper()
	if err := e.c.WriteRaw([]byte(body)); err != nil {
		e.T.Fatalf("write frame: %v", err)
	}
}

// WriteBytes writes raw bytes on the connection, headers included. It must
// not run concurrently with a Call.
func (e *Editor) WriteBytes(b []byte) {
	e.T.Helper()
	if _, err := e.srv.Conn().Write(b); err != nil {
		e.T.Fatalf("write raw bytes: %v", err)
	}
}

// Initialize sends initialize with no options and then initialized.
func (e *Editor) Initialize() InitializeResult {
	e.T.Helper()
	var res InitializeResult
	e.MustCall(protocol.MethodInitialize, schema.InitializeParams{}, &res)
	e.Notify(protocol.MethodInitialized, struct{}{})
	return res
}

// StartSession starts a session in cwd (the Env's workspace when empty)
// with the other scv/session/start params of opts (nil for none), and
// fails the test on error.
func (e *Editor) StartSession(cwd string, opts *schema.SessionStartParams) schema.Snapshot {
	e.T.Helper()
	snap, err := e.TryStartSession(cwd, opts)
	if err != nil {
		e.T.Fatalf("%s: %v", schema.MethodSessionStart, err)
	}
	return snap
}

// TryStartSession is StartSession returning the error.
func (e *Editor) TryStartSession(cwd string, opts *schema.SessionStartParams) (schema.Snapshot, error) {
	var p schema.SessionStartParams
	if opts != nil {
		p = *opts
	}
	p.Cwd = cwd
	if cwd == "" {
		p.Cwd = e.Env.Work
	}
	var snap schema.Snapshot
	err := e.Call(schema.MethodSessionStart, p, &snap)
	return snap, err
}

// StartTurn sends scv/turn/start and fails the test on error.
func (e *Editor) StartTurn(sessionID, prompt string) schema.TurnStartResult {
	e.T.Helper()
	var res schema.TurnStartResult
	e.MustCall(schema.MethodTurnStart, schema.TurnStartParams{SessionID: sessionID, Prompt: &prompt}, &res)
	return res
}

// Attach sends scv/session/attach (afterSeq nil: no replay). Events of the
// session received from now on start a new seq segment.
func (e *Editor) Attach(sessionID string, afterSeq *uint64) (schema.Snapshot, error) {
	e.mu.Lock()
	e.inv.restart(sessionID)
	e.mu.Unlock()
	var snap schema.Snapshot
	err := e.Call(schema.MethodSessionAttach, schema.SessionAttachParams{SessionID: sessionID, AfterSeq: afterSeq}, &snap)
	return snap, err
}

// Resolve answers an approval and fails the test on error.
func (e *Editor) Resolve(sessionID, approvalID, decision string) {
	e.T.Helper()
	e.MustCall(schema.MethodApprovalResolve, schema.ApprovalResolveParams{SessionID: sessionID, ApprovalID: approvalID, Decision: decision}, nil)
}

// Notes returns the notifications received so far that have method ("" for
// any) and satisfy pred (nil for all), in arrival order.
func (e *Editor) Notes(method string, pred func(Note) bool) []Note {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []Note
	for _, n := range e.notes {
		if (method == "" || n.Method == method) && (pred == nil || pred(n)) {
			out = append(out, n)
		}
	}
	return out
}

// Await waits until cond holds for the notifications received so far, at
// most timeout (the Env's timeout when 0), and fails the test otherwise.
// cond is re-evaluated whenever a notification arrives, never on a clock.
func (e *Editor) Await(what string, cond func(notes []Note) bool, timeout time.Duration) {
	e.T.Helper()
	if timeout <= 0 {
		timeout = e.Env.Timeout
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		e.mu.Lock()
		ok := cond(e.notes)
		changed := e.changed
		e.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-changed:
		case <-e.c.Done():
			// Nothing more can arrive; one last look at what did.
			e.mu.Lock()
			ok := cond(e.notes)
			e.mu.Unlock()
			if ok {
				return
			}
			e.T.Fatalf("connection closed (%v) while waiting for %s\n%s", e.c.Err(), what, e.dump())
		case <-timer.C:
			e.T.Fatalf("%s did not arrive within %s\n%s", what, timeout, e.dump())
		}
	}
}

// AwaitNotification waits for a notification with method that satisfies
// pred (nil: any), looking at everything received so far first, and
// returns the first match.
func (e *Editor) AwaitNotification(method string, pred func(Note) bool, timeout time.Duration) Note {
	e.T.Helper()
	var found Note
	e.Await(method, func(notes []Note) bool {
		for _, n := range notes {
			if n.Method == method && (pred == nil || pred(n)) {
				found = n
				return true
			}
		}
		return false
	}, timeout)
	return found
}

// AwaitTerminal waits for the event that ends a turn and returns it.
func (e *Editor) AwaitTerminal(turnID string) Note {
	e.T.Helper()
	var found Note
	e.Await("the terminal event of turn "+turnID, func(notes []Note) bool {
		for _, n := range notes {
			if n.TurnID == turnID && IsTerminal(n.Method) {
				found = n
				return true
			}
		}
		return false
	}, 0)
	return found
}

// ExpectTerminal waits for a turn's terminal event and fails the test
// unless it is method; it returns the event.
func (e *Editor) ExpectTerminal(turnID, method string) Note {
	e.T.Helper()
	n := e.AwaitTerminal(turnID)
	if n.Method != method {
		e.T.Fatalf("turn %s ended with %s, want %s\n%s", turnID, n, method, e.dump())
	}
	return n
}

// Frames returns how many frames have arrived so far: a mark to look for
// responses after.
func (e *Editor) Frames() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.frames
}

// Responses returns the responses received at or after frame mark.
func (e *Editor) Responses(mark int) []Response {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []Response
	for _, r := range e.responses {
		if r.Index >= mark {
			out = append(out, r)
		}
	}
	return out
}

// AwaitResponse waits for the first response at or after frame mark whose
// id is the JSON value id ("null" for errors that could not name a request).
func (e *Editor) AwaitResponse(mark int, id string) Response {
	e.T.Helper()
	var found Response
	e.Await("a response with id "+id, func([]Note) bool {
		for _, r := range e.responses {
			if r.Index >= mark && r.IDIs(id) {
				found = r
				return true
			}
		}
		return false
	}, 0)
	return found
}

// RawCall sends body in one frame and waits for the response with id (the
// JSON value, "null" when the server cannot know the id).
func (e *Editor) RawCall(body, id string) Response {
	e.T.Helper()
	mark := e.Frames()
	e.WriteFrame(body)
	return e.AwaitResponse(mark, id)
}

// PauseReading stops reading what the server sends, as a stuck editor
// would, until ResumeReading. No Call can be answered meanwhile.
func (e *Editor) PauseReading() { e.tap.pause() }

// ResumeReading undoes PauseReading.
func (e *Editor) ResumeReading() { e.tap.resume() }

// Done is closed when the connection has ended.
func (e *Editor) Done() <-chan struct{} { return e.c.Done() }

// AwaitClosed waits for the server to close the connection.
func (e *Editor) AwaitClosed(timeout time.Duration) {
	e.T.Helper()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-e.c.Done():
	case <-timer.C:
		e.T.Fatalf("the server did not close the connection within %s", timeout)
	}
}

// CloseInput closes the editor→server direction (the server's stdin).
func (e *Editor) CloseInput() {
	e.T.Helper()
	if err := e.srv.CloseInput(); err != nil {
		e.T.Fatalf("close the server's input: %v", err)
	}
}

// WaitExit waits for the server to end and returns its exit status.
func (e *Editor) WaitExit() int {
	e.T.Helper()
	code, err := e.srv.Wait(e.Env.Timeout)
	if err != nil {
		e.T.Fatalf("%v\nserver log:\n%s", err, e.srv.Log())
	}
	return code
}

// CheckInvariants fails the test when the events received broke an
// invariant: seq not +1 within a session, or a turn with events after its
// terminal event (including a second terminal event).
func (e *Editor) CheckInvariants() {
	e.T.Helper()
	e.mu.Lock()
	violations := append([]string(nil), e.inv.violations...)
	e.mu.Unlock()
	for _, v := range violations {
		e.T.Errorf("event stream invariant broken: %s", v)
	}
}

// Close stops the server, closes the connection, checks the invariants and
// fails the test if the server's log shows a panic or a data race.
func (e *Editor) Close() {
	e.T.Helper()
	e.closeOnce.Do(func() {
		e.tap.resume()
		e.srv.Stop(e.Env.Timeout)
		_ = e.c.Close()
		e.CheckInvariants()
		log := e.srv.Log()
		for _, bad := range []string{"panic:", "DATA RACE", "fatal error:"} {
			if strings.Contains(log, bad) {
				e.T.Errorf("the server's log shows %q:\n%s", bad, log)
				break
			}
		}
	})
}

// dump lists the notifications received so far, for failure messages.
func (e *Editor) dump() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	const max = 60
	var b strings.Builder
	start := 0
	if len(e.notes) > max {
		start = len(e.notes) - max
		fmt.Fprintf(&b, "(%d earlier notifications omitted)\n", start)
	}
	for _, n := range e.notes[start:] {
		b.WriteString("  ")
		b.WriteString(n.String())
		b.WriteByte('\n')
	}
	if len(e.notes) == 0 {
		b.WriteString("  (no notifications received)\n")
	}
	return "received:\n" + b.String()
}
