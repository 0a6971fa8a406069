package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"

	"scv/internal/outbudget"
	"scv/lsp/wire"
	"scv/runtime/config"
)

// conn is one client connection: a read loop that dispatches in wire
// order, a writer goroutine draining a byte-bounded queue, and the
// session subscriptions of this client.
type conn struct {
	srv    *Server
	rwc    io.ReadWriteCloser
	out    *wire.Outbound
	ctx    context.Context
	cancel context.CancelFunc
	async  sync.WaitGroup // handlers released from the read loop
	// largeTurn lets one largeResult handler at a time run (see dispatchAsync).
	largeTurn chan struct{}

	mu          sync.Mutex
	initialized bool
	shutdown    bool
	exited      bool
	flags       config.Overrides // initializationOptions.scv.flags: a forwarding bridge's flags
	inflight    map[string]context.CancelFunc
	lag         map[string]uint64 // sessionId → events lost since the last delivery
	// running counts this connection's handlers at work. While any runs,
	// the session events this connection receives wait in held, and go out
	// once the replies are queued: a client always learns a turn or queue
	// id from its reply before an event uses it, however many of its
	// requests run at once.
	running int
	held    []heldFrame
	// The server's own requests (scv/file/*) awaiting the client's answer.
	requests    map[int64]chan *incoming
	nextRequest int64
}

func newConn(parent context.Context, srv *Server, rwc io.ReadWriteCloser) *conn {
	ctx, cancel := context.WithCancel(parent)
	c := &conn{
		srv:       srv,
		rwc:       rwc,
		out:       wire.NewOutbound(outbudget.NewAccount(srv.outbound, srv.opts.Protocol.OutboundQueueBytes)),
		largeTurn: make(chan struct{}, 1),
		ctx:       ctx,
		cancel:    cancel,
		inflight:  map[string]context.CancelFunc{},
		lag:       map[string]uint64{},
	}
	c.out.OnDrained(c.reportLag)
	return c
}

// serve runs the connection to its end.
func (c *conn) serve() error {
	writerDone := make(chan error, 1)
	go func() {
		err := c.out.Run(c.rwc)
		if err != nil {
			c.cancel() // the client is gone: stop reading too
		}
		writerDone <- err
	}()
	// A blocked read only ends when the stream closes, so ctx (daemon
	// shutdown, writer failure) closes it.
	stopWatch := context.AfterFunc(c.ctx, func() { _ = c.rwc.Close() })
	if d := c.srv.opts.InitializeTimeout; d > 0 {
		handshake := time.AfterFunc(d, func() {
			c.mu.Lock()
			initialized := c.initialized
			c.mu.Unlock()
			if !initialized {
				c.cancel()
			}
		})
		defer handshake.Stop()
	}
	readErr := c.readLoop()
	stopWatch()
	c.cancel()
	c.async.Wait()
	c.srv.sessions.DetachAll(c)
	c.out.Close()
	select {
	case <-writerDone:
	case <-time.After(writerGrace):
		_ = c.rwc.Close()
		<-writerDone
	}
	c.mu.Lock()
	exitedEarly := c.exited && !c.shutdown
	c.mu.Unlock()
	switch {
	case readErr != nil:
		return readErr
	case exitedEarly:
		return ErrExitWithoutShutdown
	}
	return nil
}

func (c *conn) readLoop() error {
	r := wire.NewReader(c.rwc, c.srv.opts.Protocol.MaxClientFrameBytes)
	for {
		body, err := r.ReadFrame()
		var tooLarge *wire.TooLargeError
		switch {
		case errors.As(err, &tooLarge):
			c.reply(jsonrpc2.ID{}, nil, withData(codeInvalidRequest, dataFrameTooLarge,
				fmt.Sprintf("%v (limits.maxClientFrameBytes)", tooLarge)))
			continue
		case errors.Is(err, io.EOF), c.ctx.Err() != nil:
			return nil
		case err != nil:
			return fmt.Errorf("read from client: %w", err)
		}
		// Replies are never dropped, so they are what this bounds: a
		// client that writes requests without reading waits here.
		c.out.WaitRoom(c.ctx)
		if c.handleFrame(body) {
			return nil
		}
	}
}

// handleFrame dispatches one message and reports whether the connection
// should end (after `exit`).
func (c *conn) handleFrame(body []byte) bool {
	msg, id, werr := decode(body)
	if werr != nil {
		c.reply(id, nil, werr)
		return false
	}
	if msg.isResponse {
		c.answerRequest(msg)
		return false
	}
	if !msg.isCall {
		return c.handleNotification(msg)
	}
	c.mu.Lock()
	initialized, shutdown := c.initialized, c.shutdown
	c.mu.Unlock()
	m, known := methodTable[msg.method]
	switch {
	case !initialized && msg.method != methodInitialize:
		c.reply(msg.id, nil, jsonrpc2.NewError(codeNotInitialized, "the server is not initialized: send initialize first"))
	case shutdown:
		c.reply(msg.id, nil, jsonrpc2.NewError(codeInvalidRequest, "the server is shutting down: only exit is accepted"))
	case !known || m.handle == nil:
		c.reply(msg.id, nil, jsonrpc2.Errorf(codeMethodNotFound, "method not found: %s", msg.method))
	case m.async:
		c.dispatchAsync(m, msg)
	default:
		c.call(context.Background(), m, msg)
	}
	return false
}

func (c *conn) handleNotification(msg *incoming) bool {
	switch msg.method {
	case methodExit:
		c.mu.Lock()
		c.exited = true
		c.mu.Unlock()
		return true
	case methodCancelRequest:
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(msg.params, &p) == nil {
			if _, key, ok := parseID(p.ID); ok {
				c.mu.Lock()
				cancel := c.inflight[key]
				c.mu.Unlock()
				if cancel != nil {
					cancel()
				}
			}
		}
	}
	// initialized, $/setTrace, textDocument/* and anything unknown: ignored.
	return false
}

// dispatchAsync runs a long handler off the read loop, bounded by the
// in-flight limit and cancellable with $/cancelRequest.
func (c *conn) dispatchAsync(m method, msg *incoming) {
	c.mu.Lock()
	if len(c.inflight) >= c.srv.opts.Protocol.MaxInflightRequests {
		c.mu.Unlock()
		c.reply(msg.id, nil, appError(dataTooManyRequests,
			fmt.Sprintf("more than %d requests in flight (limits.maxInflightRequests)", c.srv.opts.Protocol.MaxInflightRequests)))
		return
	}
	ctx, cancel := context.WithCancel(c.ctx)
	c.inflight[msg.idText] = cancel
	c.mu.Unlock()
	c.async.Add(1)
	go func() {
		defer c.async.Done()
		defer func() {
			c.mu.Lock()
			delete(c.inflight, msg.idText)
			c.mu.Unlock()
			cancel()
		}()
		if m.largeResult {
			if !c.awaitLargeTurn(ctx) {
				c.reply(msg.id, nil, jsonrpc2.NewError(codeRequestCancelled, "request cancelled"))
				return
			}
			defer func() { <-c.largeTurn }() // after the reply is queued
		}
		c.call(ctx, m, msg)
	}()
}

// awaitLargeTurn lets a handler whose result may be as large as a frame
// start once no other such handler of this connection runs and the
// outbound queue has room. Without it, a client pipelining such requests
// without reading would have every one of its in-flight requests build
// and queue its large reply at once, whatever the budget; with it, the
// connection holds at most the budget and the one reply that crossed it. It reports false, holding nothing, when ctx ends first;
// after true the caller gives the turn back by receiving from c.largeTurn.
func (c *conn) awaitLargeTurn(ctx context.Context) bool {
	for {
		// Room first, then the turn: whoever holds the turn is building a
		// reply, never waiting for room.
		c.out.WaitRoom(ctx)
		select {
		case c.largeTurn <- struct{}{}:
		case <-ctx.Done():
			return false
		}
		if ctx.Err() != nil {
			<-c.largeTurn
			return false
		}
		if !c.out.Full() {
			return true
		}
		<-c.largeTurn // the reply built meanwhile filled the queue
	}
}

// call runs a handler, recovering a panic into an internal error so one bad
// request never takes the connection down.
func (c *conn) call(ctx context.Context, m method, msg *incoming) {
	if !m.passEvents {
		c.holdEvents()
		defer c.releaseEvents() // after the reply below is queued
	}
	var result any
	var err error
	func() {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("internal error in %s: %v", msg.method, p)
			}
		}()
		result, err = m.handle(ctx, c, msg)
	}()
	if err == nil && ctx.Err() != nil {
		err = jsonrpc2.NewError(codeRequestCancelled, "request cancelled")
	}
	if err != nil {
		c.reply(msg.id, nil, toWire(err))
		return
	}
	c.reply(msg.id, result, nil)
}

// reply queues a response. A result too large for one server frame is
// replaced by an error so the frame limit always holds.
func (c *conn) reply(id jsonrpc2.ID, result any, werr *jsonrpc2.Error) {
	var raw json.RawMessage
	if werr == nil {
		var err error
		raw, err = json.Marshal(result)
		if err != nil {
			werr = jsonrpc2.Errorf(codeInternalError, "encode result: %v", err)
		}
	}
	body := jsonrpc2.AppendResponse(nil, id, jsonrpc2.RawMessage(raw), errOrNil(werr))
	if len(body) > c.srv.opts.Protocol.MaxServerFrameBytes {
		body = jsonrpc2.AppendResponse(nil, id, nil, appError(dataResponseLimit,
			fmt.Sprintf("the result of %d bytes exceeds limits.maxServerFrameBytes", len(body))))
	}
	c.out.Push(wire.AppendFrame(nil, body))
}

func errOrNil(e *jsonrpc2.Error) error {
	if e == nil {
		return nil
	}
	return e
}
