package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"scv/acp/schema"
	"scv/runtime/tools"
)

// callResult is the client's answer to one of our requests.
type callResult struct {
	result, err json.RawMessage
}

// clientFiles routes a session's file tools through the ACP client's
// fs/read_text_file and fs/write_text_file, as far as it advertised them;
// the tools fall back to the disk for what it did not.
type clientFiles struct {
	d           *Door
	sid         string
	read, write bool
}

// filesFor is the FileAccess for a session of this connection, nil when
// the client advertised neither fs method.
func (d *Door) filesFor(sid string) tools.FileAccess {
	d.mu.Lock()
	fs := d.clientFS.FS
	d.mu.Unlock()
	if !fs.ReadTextFile && !fs.WriteTextFile {
		return nil
	}
	return &clientFiles{d: d, sid: sid, read: fs.ReadTextFile, write: fs.WriteTextFile}
}

func (c *clientFiles) ReadText(ctx context.Context, abs string, line, limit int) (string, error) {
	if !c.read {
		return "", errors.ErrUnsupported
	}
	p := schema.ReadTextFileParams{SessionID: c.sid, Path: abs}
	if line > 1 {
		p.Line = &line
	}
	if limit > 0 {
		p.Limit = &limit
	}
	raw, err := c.d.request(ctx, schema.MethodReadTextFile, p)
	if err != nil {
		return "", err
	}
	var r schema.ReadTextFileResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return "", fmt.Errorf("the editor's answer to %s: %w", schema.MethodReadTextFile, err)
	}
	return r.Content, nil
}

func (c *clientFiles) WriteText(ctx context.Context, abs, content string) error {
	if !c.write {
		return errors.ErrUnsupported
	}
	_, err := c.d.request(ctx, schema.MethodWriteTextFile, schema.WriteTextFileParams{SessionID: c.sid, Path: abs, Content: content})
	return err
}

// request sends a request to the client and waits for its answer, for ctx
// (a turn cancelled withdraws it with $/cancel_request) or for the
// connection to end.
func (d *Door) request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	ch := make(chan callResult, 1)
	d.mu.Lock()
	if d.calls == nil {
		d.calls = map[int64]chan callResult{}
	}
	d.nextID++
	id := d.nextID
	d.calls[id] = ch
	d.mu.Unlock()
	forget := func() {
		d.mu.Lock()
		delete(d.calls, id)
		d.mu.Unlock()
	}
	d.call(id, method, params)
	select {
	case r := <-ch:
		if r.err != nil {
			var e wireError
			if json.Unmarshal(r.err, &e) == nil && e.Message != "" {
				return nil, fmt.Errorf("the editor refused %s: %s", method, e.Message)
			}
			return nil, fmt.Errorf("the editor refused %s", method)
		}
		return r.result, nil
	case <-ctx.Done():
		forget()
		d.notify(schema.MethodCancelRequest, schema.CancelRequestParams{RequestID: json.RawMessage(strconv.FormatInt(id, 10))})
		return nil, ctx.Err()
	case <-d.ctx.Done():
		forget()
		return nil, errors.New("the ACP client went away")
	}
}

// answerCall hands the client's answer to a waiting request; false when
// the id is not one of them.
func (d *Door) answerCall(id int64, result, rpcErr json.RawMessage) bool {
	d.mu.Lock()
	ch := d.calls[id]
	delete(d.calls, id)
	d.mu.Unlock()
	if ch == nil {
		return false
	}
	ch <- callResult{result: result, err: rpcErr}
	return true
}
