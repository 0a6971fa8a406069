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
	var p schema.InitializeParams
	if b, ok := e.srv.(bridged); ok {
		p.InitializationOptions = b.initializationOptions()
	}
	e.MustCall(protocol.MethodInitialize, p, &res)
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

// AttachFull attaches to a session with the whole stored transcript
// replayed (replay "full"), whose seqs skip the deltas'.
func (e *Editor) AttachFull(sessionID string) (schema.Snapshot, error) {
	e.mu.Lock()
	e.inv.restart(sessionID)
	e.inv.holes[sessionID] = true
	e.mu.Unlock()
	var snap schema.Snapshot
	err := e.Call(schema.MethodSessionAttach, schema.SessionAttachParams{SessionID: sessionID, Replay: schema.ReplayFull}, &snap)
	return snap, err
}

// Resolve answers an approval and fails the test on error.
func (e *Editor) Resolve(sessionID, approvalID, decision string) {
	e.T.Helper()
	e.MustCall(schema.MethodApprovalResolve, schema.ApprovalResolveParams{SessionID: sessionID, ApprovalID: approvalID, Decision: decision}, nil)
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
