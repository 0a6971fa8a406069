package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"go.lsp.dev/jsonrpc2"

	"scv/lsp/schema"
	"scv/lsp/wire"
	"scv/runtime/tools"
)

// FileRequestTimeout bounds how long a file tool waits for a client's
// answer to scv/file/read or scv/file/write (advertised at initialize as
// fileRequestTimeoutMs).
const FileRequestTimeout = 30 * time.Second

// filesFor is the file access a prompt of this connection asked for: the
// turn's file tools go through this connection as far as the prompt's
// fileAccess said; nil when it asked for none.
func (c *conn) filesFor(sid string, fa *schema.FileAccess) tools.FileAccess {
	if fa == nil || (!fa.Read && !fa.Write) {
		return nil
	}
	var files tools.ClientFiles
	if fa.Read {
		files.Read = func(ctx context.Context, abs string, line, limit *int) (string, error) {
			raw, err := c.request(ctx, schema.MethodFileRead, schema.FileReadParams{SessionID: sid, Path: abs, Line: line, Limit: limit})
			if err != nil {
				return "", err
			}
			var r schema.FileReadResult
			if err := json.Unmarshal(raw, &r); err != nil {
				return "", fmt.Errorf("the editor's answer to %s: %w", schema.MethodFileRead, err)
			}
			return r.Content, nil
		}
	}
	if fa.Write {
		files.Write = func(ctx context.Context, abs, content string) error {
			_, err := c.request(ctx, schema.MethodFileWrite, schema.FileWriteParams{SessionID: sid, Path: abs, Content: content})
			return err
		}
	}
	return files
}

// request sends the client a request and waits for its answer, at most
// FileRequestTimeout. A connection already gone answers
// errors.ErrUnsupported, so the tool uses the disk; one that goes while
// the request waits fails it, as nobody can tell whether it was served.
// A cancelled ctx (the turn) withdraws the request with $/cancelRequest.
func (c *conn) request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	if c.ctx.Err() != nil {
		return nil, errors.ErrUnsupported
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", method, err)
	}
	ch := make(chan *incoming, 1)
	c.mu.Lock()
	if c.requests == nil {
		c.requests = map[int64]chan *incoming{}
	}
	c.nextRequest++
	id := c.nextRequest
	c.requests[id] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.requests, id)
		c.mu.Unlock()
	}()
	body := jsonrpc2.AppendCall(nil, jsonrpc2.NewNumberID(id), method, jsonrpc2.RawMessage(raw))
	if len(body) > c.srv.opts.Protocol.MaxServerFrameBytes {
		return nil, fmt.Errorf("%s: the request of %d bytes exceeds limits.maxServerFrameBytes", method, len(body))
	}
	c.out.Push(wire.AppendFrame(nil, body))
	timeout := time.NewTimer(FileRequestTimeout)
	defer timeout.Stop()
	select {
	case msg := <-ch:
		return answerOf(method, msg)
	case <-ctx.Done():
		c.out.Push(notificationFrame(methodCancelRequest, struct {
			ID int64 `json:"id"`
		}{id}))
		return nil, ctx.Err()
	case <-timeout.C:
		return nil, fmt.Errorf("the editor did not answer %s within %s", method, FileRequestTimeout)
	case <-c.ctx.Done():
		return nil, fmt.Errorf("the editor's connection closed before it answered %s", method)
	}
}

// answerOf reads a client's answer; data.code "unsupported" means "use
// the disk".
func answerOf(method string, msg *incoming) (json.RawMessage, error) {
	if len(msg.rpcErr) == 0 || string(msg.rpcErr) == "null" {
		return msg.result, nil
	}
	var e struct {
		Message string           `json:"message"`
		Data    schema.ErrorData `json:"data"`
	}
	_ = json.Unmarshal(msg.rpcErr, &e)
	if e.Data.Code == schema.CodeUnsupported {
		return nil, errors.ErrUnsupported
	}
	if e.Message == "" {
		return nil, fmt.Errorf("the editor refused %s", method)
	}
	return nil, fmt.Errorf("the editor refused %s: %s", method, e.Message)
}

// answerRequest hands a client's response to the request waiting for it;
// a response nobody waits for (late, or a stray id) is dropped.
func (c *conn) answerRequest(msg *incoming) {
	id, err := strconv.ParseInt(msg.idText, 10, 64)
	if err != nil {
		return
	}
	c.mu.Lock()
	ch := c.requests[id]
	delete(c.requests, id)
	c.mu.Unlock()
	if ch != nil {
		ch <- msg
	}
}
