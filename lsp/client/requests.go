package client

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// RequestHandler answers a request the server sends this client
// (scv/file/read and scv/file/write). An *Error it returns goes out as
// is; any other error as an internal error with its text.
type RequestHandler func(ctx context.Context, method string, params json.RawMessage) (any, error)

// serverRequests runs the handlers of the server's requests, each on its
// own goroutine, cancelled by the server's $/cancelRequest or when the
// client closes, which waits for them.
type serverRequests struct {
	handle RequestHandler
	ctx    context.Context
	stop   context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	cancels map[string]context.CancelFunc // by the request id's text
}

// HandleRequests makes the client answer the server's requests with h;
// call it before the first Call, as a server request may follow any reply.
func (c *Client) HandleRequests(h RequestHandler) {
	ctx, stop := context.WithCancel(context.Background())
	c.mu.Lock()
	c.requests = &serverRequests{handle: h, ctx: ctx, stop: stop, cancels: map[string]context.CancelFunc{}}
	c.mu.Unlock()
}

// serve answers one server request; without a handler, -32601. key is
// the id as JSON text, as the server's $/cancelRequest names it.
func (c *Client) serve(id jsonrpc2.ID, key, method string, params json.RawMessage) {
	c.mu.Lock()
	r := c.requests
	c.mu.Unlock()
	if r == nil {
		_ = c.write(jsonrpc2.AppendResponse(nil, id, nil, jsonrpc2.NewError(-32601, "this client does not handle "+method)))
		return
	}
	ctx, cancel := context.WithCancel(r.ctx)
	r.mu.Lock()
	r.cancels[key] = cancel
	r.mu.Unlock()
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer func() {
			r.mu.Lock()
			delete(r.cancels, key)
			r.mu.Unlock()
			cancel()
		}()
		result, err := safeHandle(ctx, r.handle, method, params)
		_ = c.write(responseTo(id, result, err))
	}()
}

func safeHandle(ctx context.Context, h RequestHandler, method string, params json.RawMessage) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = errors.New("the client's handler of " + method + " failed")
		}
	}()
	return h(ctx, method, params)
}

func responseTo(id jsonrpc2.ID, result any, err error) []byte {
	if err != nil {
		e, ok := AsError(err)
		if !ok {
			e = &Error{Code: -32603, Message: err.Error()}
		}
		return jsonrpc2.AppendResponse(nil, id, nil, &jsonrpc2.Error{Code: jsonrpc2.Code(e.Code), Message: e.Message, Data: jsonrpc2.RawMessage(e.Data)})
	}
	raw, merr := json.Marshal(result)
	if merr != nil {
		return jsonrpc2.AppendResponse(nil, id, nil, jsonrpc2.NewError(-32603, "encode result: "+merr.Error()))
	}
	return jsonrpc2.AppendResponse(nil, id, jsonrpc2.RawMessage(raw), nil)
}

// cancelServerRequest cancels the handler of a request the server withdrew.
func (c *Client) cancelServerRequest(params json.RawMessage) {
	c.mu.Lock()
	r := c.requests
	c.mu.Unlock()
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if r == nil || json.Unmarshal(params, &p) != nil {
		return
	}
	r.mu.Lock()
	cancel := r.cancels[string(p.ID)]
	r.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// stopServing cancels the running handlers and waits for them.
func (c *Client) stopServing() {
	c.mu.Lock()
	r := c.requests
	c.mu.Unlock()
	if r != nil {
		r.stop()
		r.wg.Wait()
	}
}
