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

// filesFor routes a session's file tools through the ACP client's
// fs/read_text_file and fs/write_text_file, as far as it advertised them
// (the tools use the disk for what it did not); nil when it advertised
// neither.
func (d *Door) filesFor(sid string) tools.FileAccess {
	d.mu.Lock()
	fs := d.clientFS.FS
	d.mu.Unlock()
	if !fs.ReadTextFile && !fs.WriteTextFile {
		return nil
	}
	var files tools.ClientFiles
	if fs.ReadTextFile {
		files.Read = func(ctx context.Context, abs string, line, limit *int) (string, error) {
			raw, err := d.request(ctx, schema.MethodReadTextFile, schema.ReadTextFileParams{SessionID: sid, Path: abs, Line: line, Limit: limit})
			if err != nil {
				return "", err
			}
			var r schema.ReadTextFileResult
			if err := json.Unmarshal(raw, &r); err != nil {
				return "", fmt.Errorf("the editor's answer to %s: %w", schema.MethodReadTextFile, err)
			}
			return r.Content, nil
		}
	}
	if fs.WriteTextFile {
		files.Write = func(ctx context.Context, abs, content string) error {
			_, err := d.request(ctx, schema.MethodWriteTextFile, schema.WriteTextFileParams{SessionID: sid, Path: abs, Content: content})
			return err
		}
	}
	return files
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
