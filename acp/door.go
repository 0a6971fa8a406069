// Package acp is scv's Agent Client Protocol front door: ACP v1 over a
// byte stream of newline-delimited JSON-RPC messages, onto the same
// sessions the scv protocol serves. The runtime's typed events become
// session/update notifications (encoded once per event, shared by every
// ACP connection), approvals become session/request_permission requests,
// and a prompt sent while a turn runs waits in the session's queue and is
// answered when its own turn ends.
package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"scv/acp/schema"
	"scv/internal/outbudget"
	"scv/runtime/config"
	"scv/runtime/session"
	"scv/runtime/tools"
)

// DefaultMaxLineBytes bounds one incoming message when Options leaves it 0.
const DefaultMaxLineBytes = 8 << 20

// Options configure a Door.
type Options struct {
	Backend Backend
	Version string
	// MaxLineBytes bounds one message from the client
	// (protocol.max_client_frame_bytes).
	MaxLineBytes int
	// MaxQueuedBytes bounds the updates waiting for a slow client
	// (protocol.outbound_queue_bytes, as for scv lsp); see lag.go.
	MaxQueuedBytes int
	// Outbound is the process's budget of bytes queued for clients
	// (protocol.max_process_outbound_bytes), which the updates waiting
	// for this client are charged to as well; nil gives the door one of
	// its own, of MaxQueuedBytes.
	Outbound *outbudget.Process
	Log      *slog.Logger
}

// Door serves one ACP client.
type Door struct {
	opts Options
	be   Backend
	out  lineWriter
	ctx  context.Context

	mu          sync.Mutex
	initialized bool
	clientFS    schema.ClientCapabilities
	notices     bool              // the client shows notice updates
	lag         map[string]uint64 // sessionId → updates dropped (MaxQueuedEvents)
	sessions    map[string]*sessState
	byTurn      map[string]*waiter        // prompts whose turn runs
	byQueue     map[string]*waiter        // prompts waiting in a queue
	asks        map[string]*ask           // approvalId → open permission request
	asked       map[int64]*ask            // our request id → the same
	calls       map[int64]chan callResult // our other requests (fs/*) awaiting answers
	nextID      int64
	// The event pump: events wait in queue while holds > 0, so a handler
	// can learn a turn's id before the turn's events are interpreted.
	queue []item
	spare []item // the last batch's emptied array, reused by queue
	// acct is charged queuedSize for each item from deliver until the
	// pump has written the batch it is in.
	acct  *outbudget.Account
	holds int
	wake  *sync.Cond
	live  liveTails // running calls' output tails; the pump's own
	done  bool
}

// sessState is what this connection knows of one session.
type sessState struct {
	cwd     string
	model   string
	policy  string   // the approval policy ("" while unknown)
	allowed []string // the policies the session's ceiling admits (nil: all)
	models  []string // what the model option offers, read at setup
	running string   // the running turn's id, as the events tell it
	title   string   // stored by the runtime, else from the first prompt seen
	// streamed: the replayed answer being rebuilt came as deltas, so its
	// assistant.completed must not repeat it (used by the pump only).
	streamed bool
}

// waiter is a session/prompt not yet answered.
type waiter struct {
	id  json.RawMessage
	sid string
}

// ask is an open session/request_permission.
type ask struct {
	reqID      int64
	sid        string
	approvalID string
}

// item is one entry of the event pump.
type item struct {
	ev     session.Event
	replay bool   // from session/load: shown, never acted on
	fn     func() // an action ordered among the events
	// update is ev's shared session/update (nil: none), when deliver
	// already built it: the pump writes it without a second lookup, and
	// a daemon's decoded events, which carry no encoding memo, are not
	// encoded twice.
	update  []byte
	encoded bool
}

// New returns a door on its backend.
func New(opts Options) *Door {
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = DefaultMaxLineBytes
	}
	if opts.MaxQueuedBytes <= 0 {
		opts.MaxQueuedBytes = config.DefaultOutboundQueueBytes
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	d := &Door{
		opts:     opts,
		be:       opts.Backend,
		sessions: map[string]*sessState{},
		byTurn:   map[string]*waiter{},
		byQueue:  map[string]*waiter{},
		asks:     map[string]*ask{},
		asked:    map[int64]*ask{},
		lag:      map[string]uint64{},
		acct:     outbudget.NewAccount(opts.Outbound, opts.MaxQueuedBytes),
	}
	d.wake = sync.NewCond(&d.mu)
	if l, ok := opts.Backend.(interface{ bind(func(session.Event)) }); ok {
		l.bind(d.deliver)
	}
	if l, ok := opts.Backend.(interface {
		bindFiles(func(sid string) tools.FileAccess)
	}); ok {
		l.bindFiles(d.filesFor)
	}
	return d
}

// Deliver is the sink a backend built outside this package feeds.
func (d *Door) Deliver(ev session.Event) { d.deliver(ev) }

// Serve runs the connection until the client closes its side or ctx ends.
func (d *Door) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	d.ctx = ctx
	d.out.w = w
	pumpDone := make(chan struct{})
	go func() {
		defer close(pumpDone)
		d.pump()
	}()
	err := d.readLoop(r)
	d.be.Shutdown()
	d.mu.Lock()
	d.done = true
	d.wake.Broadcast()
	d.mu.Unlock()
	<-pumpDone
	// What the pump left unwritten goes back to the process budget.
	d.mu.Lock()
	clear(d.queue)
	d.queue = nil
	d.acct.ReleaseAll()
	d.mu.Unlock()
	return err
}

func (d *Door) readLoop(r io.Reader) error {
	lr := newLineReader(r, d.opts.MaxLineBytes)
	for {
		line, err := lr.next()
		var tooLong *errLineTooLong
		switch {
		case errors.As(err, &tooLong):
			d.replyError(nil, rpcError(schema.CodeInvalidRequest, "frame_too_large", tooLong.Error()))
			continue
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return fmt.Errorf("read from the ACP client: %w", err)
		}
		d.waitRoom()
		d.handleLine(line)
		if d.ctx.Err() != nil {
			return nil
		}
	}
}

// message is one incoming JSON-RPC message.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// handleLine dispatches one message; a panic in a handler becomes an
// internal error for that request only.
func (d *Door) handleLine(line []byte) {
	var msg message
	if err := json.Unmarshal(line, &msg); err != nil {
		d.replyError(nil, rpcError(schema.CodeParseError, "parse_error", "the message is not a JSON-RPC object: "+err.Error()))
		return
	}
	id := msg.ID
	if string(id) == "null" {
		id = nil
	}
	if msg.Method == nil {
		if id != nil && (msg.Result != nil || msg.Error != nil) {
			d.handleResponse(id, msg.Result, msg.Error)
			return
		}
		d.replyError(id, rpcError(schema.CodeInvalidRequest, "invalid_request", "the message has no method"))
		return
	}
	if !validID(id) {
		d.replyError(nil, rpcError(schema.CodeInvalidRequest, "invalid_request", "id must be a string or an integer"))
		return
	}
	defer func() {
		if p := recover(); p != nil {
			d.opts.Log.Error("ACP handler panicked", "method", *msg.Method, "panic", p)
			if id != nil {
				d.replyError(id, rpcError(schema.CodeInternalError, "internal", fmt.Sprintf("internal error in %s: %v", *msg.Method, p)))
			}
		}
	}()
	if id == nil {
		d.handleNotification(*msg.Method, msg.Params)
		return
	}
	d.handleRequest(id, *msg.Method, msg.Params)
}

func validID(id json.RawMessage) bool {
	if id == nil {
		return true
	}
	var v any
	if json.Unmarshal(id, &v) != nil {
		return false
	}
	switch n := v.(type) {
	case string:
		return true
	case float64:
		return n == float64(int64(n))
	}
	return false
}
