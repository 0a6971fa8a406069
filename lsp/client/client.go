// Package client is a small JSON-RPC client for the scv protocol over LSP
// framing: what `scv exec`, `scv status`/`attach` and the tests use to
// talk to a server on a pipe or a socket.
package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"syscall"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"scv/lsp/schema"
	"scv/lsp/wire"
)

// MaxFrameBytes bounds a frame the client accepts from the server.
const MaxFrameBytes = 64 << 20

// Error is an error response from the server.
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string {
	if c := e.DataCode(); c != "" {
		return fmt.Sprintf("%s (%s, %d)", e.Message, c, e.Code)
	}
	return fmt.Sprintf("%s (%d)", e.Message, e.Code)
}

// DataCode returns data.code of an application error, or "".
func (e *Error) DataCode() string {
	var d struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal(e.Data, &d)
	return d.Code
}

// Notification is a message from the server without an id.
type Notification struct {
	Method string
	Params json.RawMessage
}

// Client is one connection. Notifications are passed, in order, to the
// handler given to New, on the client's read goroutine.
type Client struct {
	rwc      io.ReadWriteCloser
	onNotify func(Notification)

	writeMu sync.Mutex
	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan response
	err     error
	// lastMessage is the last window/showMessage text: a server that
	// refuses a connection says why that way before it hangs up.
	lastMessage string
	done        chan struct{}
	requests    *serverRequests // nil: the server's requests get -32601
}

// ProtocolVersion is the scv protocol version the client asks for.
const ProtocolVersion = schema.ProtocolVersion

// ErrConnectionClosed means the server hung up.
var ErrConnectionClosed = errors.New("the scv server closed the connection")

type response struct {
	result json.RawMessage
	err    error
}

// New starts reading from rwc. onNotify may be nil.
func New(rwc io.ReadWriteCloser, onNotify func(Notification)) *Client {
	c := &Client{rwc: rwc, onNotify: onNotify, pending: map[int64]chan response{}, done: make(chan struct{})}
	go c.readLoop()
	return c
}

// Done is closed when the connection has ended; Err then says why.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err returns why the connection ended (io.EOF for a clean close).
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close closes the connection and waits for the read goroutine.
func (c *Client) Close() error {
	err := c.rwc.Close()
	<-c.done
	c.stopServing()
	return err
}

func (c *Client) readLoop() {
	defer close(c.done)
	defer c.stopServing() // the server is gone: nobody reads the answers
	r := wire.NewReader(c.rwc, MaxFrameBytes)
	var err error
	for {
		var body []byte
		body, err = r.ReadFrame()
		if err != nil {
			break
		}
		c.dispatch(body)
	}
	c.mu.Lock()
	c.err = closeReason(err, c.lastMessage)
	err = c.err
	pending := c.pending
	c.pending = map[int64]chan response{}
	c.mu.Unlock()
	for _, ch := range pending {
		ch <- response{err: err}
	}
}

// closeReason explains why the read loop ended. A peer that closes with
// our input unread makes the read fail with ECONNRESET instead of EOF;
// either way the server hung up.
func closeReason(readErr error, lastMessage string) error {
	hungUp := errors.Is(readErr, io.EOF) || errors.Is(readErr, syscall.ECONNRESET) || errors.Is(readErr, io.ErrUnexpectedEOF)
	switch {
	case hungUp && lastMessage != "":
		return fmt.Errorf("%w: %s", ErrConnectionClosed, lastMessage)
	case hungUp:
		return ErrConnectionClosed
	case errors.Is(readErr, net.ErrClosed), errors.Is(readErr, os.ErrClosed):
		return net.ErrClosed
	}
	return fmt.Errorf("read from the scv server: %w", readErr)
}

// dispatch classifies one frame: the server's own notifications by their
// fixed shape, anything else with jsonrpc2's zero-copy scanner. The
// client reads every streamed delta, so decoding each into a struct would
// dominate its cost. body is freshly allocated per frame, so its spans can
// be kept without copying.
func (c *Client) dispatch(body []byte) {
	if method, params, ok := scanServerNotification(body); ok {
		c.notify(method, params)
		return
	}
	view, err := jsonrpc2.ScanMessageView(body)
	if err != nil {
		return
	}
	switch view.Kind {
	case jsonrpc2.MessageViewNotification:
		method, _ := view.MethodString()
		c.notify(method, view.Params)
		return
	case jsonrpc2.MessageViewCall:
		// A request from the server: see HandleRequests.
		method, _ := view.MethodString()
		id, key := jsonrpc2.NewNumberID(0), "0"
		if n, ok := view.ID.Number(); ok {
			id, key = jsonrpc2.NewNumberID(n), strconv.FormatInt(n, 10)
		} else if s, ok := view.ID.StringValue(); ok {
			quoted, _ := json.Marshal(s)
			id, key = jsonrpc2.NewStringID(s), string(quoted)
		}
		c.serve(id, key, method, json.RawMessage(view.Params))
		return
	case jsonrpc2.MessageViewResponseResult, jsonrpc2.MessageViewResponseError:
	default:
		return
	}
	id, ok := view.ID.Number()
	if !ok {
		return // an error for a frame with no id (frame_too_large): no caller waits for it
	}
	c.mu.Lock()
	ch := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if ch == nil {
		return
	}
	if view.Kind == jsonrpc2.MessageViewResponseError {
		var e Error
		if err := json.Unmarshal(view.ErrorRaw, &e); err != nil {
			e = Error{Code: -32603, Message: "undecodable error response"}
		}
		ch <- response{err: &e}
		return
	}
	ch <- response{result: json.RawMessage(view.Result)}
}

// notify remembers a window/showMessage text and hands the notification
// to the handler.
func (c *Client) notify(method string, params []byte) {
	if method == protocol.MethodCancelRequest {
		c.cancelServerRequest(params)
	}
	if method == protocol.MethodWindowShowMessage {
		var p struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(params, &p) == nil {
			c.mu.Lock()
			c.lastMessage = p.Message
			c.mu.Unlock()
		}
	}
	if c.onNotify != nil {
		c.onNotify(Notification{Method: method, Params: json.RawMessage(params)})
	}
}

// Call sends a request and decodes its result into result (which may be
// nil). A cancelled ctx sends $/cancelRequest and returns ctx.Err().
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("encode %s params: %w", method, err)
	}
	ch := make(chan response, 1)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return c.err
	}
	c.nextID++
	id := c.nextID
	c.pending[id] = ch
	c.mu.Unlock()
	if err := c.write(jsonrpc2.AppendCall(nil, jsonrpc2.NewNumberID(id), method, jsonrpc2.RawMessage(raw))); err != nil {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return err
	}
	select {
	case resp := <-ch:
		if resp.err != nil {
			return fmt.Errorf("%s: %w", method, resp.err)
		}
		if result != nil && len(resp.result) > 0 {
			return json.Unmarshal(resp.result, result)
		}
		return nil
	case <-ctx.Done():
		_ = c.Notify(protocol.MethodCancelRequest, struct {
			ID int64 `json:"id"`
		}{id})
		return ctx.Err()
	}
}

// Initialize performs the LSP handshake (initialize, then initialized) and
// returns the initialize result.
func (c *Client) Initialize(ctx context.Context, clientName string) (json.RawMessage, error) {
	pid, version := os.Getpid(), ProtocolVersion
	params := schema.InitializeParams{
		ProcessID:             &pid,
		ClientInfo:            &schema.ClientInfo{Name: clientName},
		InitializationOptions: &schema.InitializationOptions{SCV: &schema.ClientOptions{ProtocolVersion: &version}},
	}
	var result json.RawMessage
	if err := c.Call(ctx, protocol.MethodInitialize, params, &result); err != nil {
		return nil, err
	}
	if err := c.Notify(protocol.MethodInitialized, struct{}{}); err != nil {
		return nil, fmt.Errorf("initialized: %w", err)
	}
	return result, nil
}

// Notify sends a notification.
func (c *Client) Notify(method string, params any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("encode %s params: %w", method, err)
	}
	return c.write(jsonrpc2.AppendNotification(nil, method, jsonrpc2.RawMessage(raw)))
}

// WriteRaw sends body as one frame, as is: tests use it for bad input.
func (c *Client) WriteRaw(body []byte) error { return c.write(body) }

func (c *Client) write(body []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if _, err := c.rwc.Write(wire.AppendFrame(nil, body)); err != nil {
		return fmt.Errorf("write to server: %w", err)
	}
	return nil
}

// AsError returns err as a server *Error, if it is one.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}
