package bridge

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

	"scv/lsp/wire"
)

// ProtocolVersion is the scv protocol version the client asks for.
const ProtocolVersion = 1

// RPCError is a JSON-RPC error answer.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string {
	if c := e.DataCode(); c != "" {
		return fmt.Sprintf("%s (%s, %d)", e.Message, c, e.Code)
	}
	return fmt.Sprintf("%s (%d)", e.Message, e.Code)
}

// DataCode is data.code, scv's machine-readable error code, if any.
func (e *RPCError) DataCode() string {
	var d struct {
		Code string `json:"code"`
	}
	if json.Unmarshal(e.Data, &d) != nil {
		return ""
	}
	return d.Code
}

// Client is a small JSON-RPC client over LSP frames, for the CLI commands
// that talk to the daemon (status, stop, attach) and for tests.
type Client struct {
	conn     net.Conn
	onNotify func(method string, params json.RawMessage)

	writeMu sync.Mutex
	wbuf    []byte

	mu          sync.Mutex
	nextID      int64
	pending     map[int64]chan rpcResult
	lastMessage string // the last window/showMessage, to explain a hang-up
	err         error  // why the connection ended, once done is closed

	done chan struct{}
}

type rpcResult struct {
	result json.RawMessage
	err    error
}

// NewClient starts reading conn. onNotify, when not nil, receives every
// notification in arrival order on the reading goroutine: it must not wait
// for a Call of the same client. Close stops the client.
func NewClient(conn net.Conn, onNotify func(method string, params json.RawMessage)) *Client {
	c := &Client{
		conn:     conn,
		onNotify: onNotify,
		pending:  make(map[int64]chan rpcResult),
		done:     make(chan struct{}),
	}
	go c.readLoop()
	return c
}

// Done is closed when the connection has ended.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err says why the connection ended; valid after Done is closed.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close closes the connection and waits for the reading goroutine.
func (c *Client) Close() error {
	err := c.conn.Close()
	<-c.done
	return err
}

// Call sends a request and decodes its result into result (which may be
// nil). Cancelling ctx sends $/cancelRequest and returns ctx.Err().
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	ch := make(chan rpcResult, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return err
	}
	c.nextID++
	id := c.nextID
	c.pending[id] = ch
	c.mu.Unlock()

	if err := c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		c.forget(id)
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case r := <-ch:
		if r.err != nil {
			return fmt.Errorf("%s: %w", method, r.err)
		}
		if result != nil {
			if err := json.Unmarshal(r.result, result); err != nil {
				return fmt.Errorf("%s: decode the result: %w", method, err)
			}
		}
		return nil
	case <-ctx.Done():
		c.forget(id)
		c.Notify("$/cancelRequest", map[string]any{"id": id})
		return ctx.Err()
	}
}

// Notify sends a notification.
func (c *Client) Notify(method string, params any) error {
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		msg["params"] = params
	}
	return c.send(msg)
}

// Initialize performs the LSP handshake (initialize, then initialized) and
// returns the initialize result.
func (c *Client) Initialize(ctx context.Context, clientName string) (json.RawMessage, error) {
	params := map[string]any{
		"processId":             os.Getpid(),
		"clientInfo":            map[string]any{"name": clientName},
		"rootUri":               nil,
		"capabilities":          map[string]any{},
		"initializationOptions": map[string]any{"scv": map[string]any{"protocolVersion": ProtocolVersion}},
	}
	var result json.RawMessage
	if err := c.Call(ctx, "initialize", params, &result); err != nil {
		return nil, err
	}
	if err := c.Notify("initialized", map[string]any{}); err != nil {
		return nil, fmt.Errorf("initialized: %w", err)
	}
	return result, nil
}

func (c *Client) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

func (c *Client) send(msg any) error {
	body, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	c.wbuf = wire.AppendFrame(c.wbuf[:0], body)
	if _, err := c.conn.Write(c.wbuf); err != nil {
		return fmt.Errorf("write to the scv daemon: %w", err)
	}
	return nil
}

type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *RPCError       `json:"error"`
}

func (c *Client) readLoop() {
	r := wire.NewReader(c.conn, MaxServerFrameBytes)
	var err error
	for {
		var body []byte
		body, err = r.ReadFrame()
		var tooLarge *wire.TooLargeError
		if errors.As(err, &tooLarge) {
			continue
		}
		if err != nil {
			break
		}
		var msg envelope
		if json.Unmarshal(body, &msg) != nil {
			continue // not JSON-RPC; nothing to route it to
		}
		c.dispatch(&msg)
	}
	c.finish(err)
}

func (c *Client) dispatch(msg *envelope) {
	hasID := len(msg.ID) > 0 && string(msg.ID) != "null"
	switch {
	case msg.Method != "" && hasID:
		// A request from the server; this client serves none.
		c.send(map[string]any{"jsonrpc": "2.0", "id": msg.ID,
			"error": RPCError{Code: codeMethodNotFound, Message: "the scv CLI client does not handle " + msg.Method}})
	case msg.Method != "":
		if msg.Method == "window/showMessage" {
			var p messageParams
			if json.Unmarshal(msg.Params, &p) == nil {
				c.mu.Lock()
				c.lastMessage = p.Message
				c.mu.Unlock()
			}
		}
		if c.onNotify != nil {
			c.onNotify(msg.Method, msg.Params)
		}
	case hasID:
		id, err := strconv.ParseInt(string(msg.ID), 10, 64)
		if err != nil {
			return
		}
		c.mu.Lock()
		ch := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if ch == nil {
			return
		}
		if msg.Error != nil {
			ch <- rpcResult{err: msg.Error}
		} else {
			ch <- rpcResult{result: msg.Result}
		}
	}
}

// ErrConnectionClosed: the daemon closed the connection.
var ErrConnectionClosed = errors.New("the scv daemon closed the connection")

func (c *Client) finish(readErr error) {
	c.mu.Lock()
	// A peer that closes with our input unread makes the read fail with
	// ECONNRESET instead of EOF; either way the daemon hung up.
	hungUp := errors.Is(readErr, io.EOF) || errors.Is(readErr, syscall.ECONNRESET)
	switch {
	case hungUp && c.lastMessage != "":
		c.err = fmt.Errorf("%w: %s", ErrConnectionClosed, c.lastMessage)
	case hungUp:
		c.err = ErrConnectionClosed
	case errors.Is(readErr, net.ErrClosed):
		c.err = net.ErrClosed
	default:
		c.err = fmt.Errorf("read from the scv daemon: %w", readErr)
	}
	for id, ch := range c.pending {
		ch <- rpcResult{err: c.err}
		delete(c.pending, id)
	}
	c.mu.Unlock()
	close(c.done)
}
