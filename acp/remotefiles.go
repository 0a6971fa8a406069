package acp

import (
	"context"
	"encoding/json"
	"errors"

	"scv/lsp/client"
	lspschema "scv/lsp/schema"
	"scv/runtime/tools"
)

// The daemon's file requests: a prompt this door sends with fileAccess has
// its turn's file tools ask the daemon's scv/file/read and scv/file/write,
// which this door relays to its ACP client's fs/read_text_file and
// fs/write_text_file, as the in-process backend does directly.

func (r *Remote) bindFiles(files func(sid string) tools.FileAccess) {
	r.mu.Lock()
	r.files = files
	r.mu.Unlock()
}

// filesOf is the ACP client's file access for a session, nil when it
// offers none.
func (r *Remote) filesOf(sid string) tools.FileAccess {
	r.mu.Lock()
	files := r.files
	r.mu.Unlock()
	if files == nil {
		return nil
	}
	return files(sid)
}

// fileAccess is scv/turn/start's fileAccess for a prompt of this door. It
// offers both requests when the client has either fs method: the one it
// lacks is answered "unsupported", which sends that call to the disk.
func (r *Remote) fileAccess(sid string) *lspschema.FileAccess {
	if r.filesOf(sid) == nil {
		return nil
	}
	return &lspschema.FileAccess{Read: true, Write: true}
}

// serveFile answers the daemon's scv/file/* requests.
func (r *Remote) serveFile(ctx context.Context, method string, params json.RawMessage) (any, error) {
	switch method {
	case lspschema.MethodFileRead:
		var p lspschema.FileReadParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, &client.Error{Code: -32602, Message: "invalid params: " + err.Error()}
		}
		fa := r.filesOf(p.SessionID)
		if fa == nil {
			return nil, unsupportedFile(method)
		}
		line, limit := 0, 0
		if p.Line != nil {
			line = *p.Line
		}
		if p.Limit != nil {
			limit = *p.Limit
		}
		text, err := fa.ReadText(ctx, p.Path, line, limit)
		if err != nil {
			return nil, fileError(method, err)
		}
		return lspschema.FileReadResult{Content: text}, nil
	case lspschema.MethodFileWrite:
		var p lspschema.FileWriteParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, &client.Error{Code: -32602, Message: "invalid params: " + err.Error()}
		}
		fa := r.filesOf(p.SessionID)
		if fa == nil {
			return nil, unsupportedFile(method)
		}
		if err := fa.WriteText(ctx, p.Path, p.Content); err != nil {
			return nil, fileError(method, err)
		}
		return lspschema.Empty{}, nil
	}
	return nil, &client.Error{Code: -32601, Message: "scv acp does not handle " + method}
}

func fileError(method string, err error) error {
	if errors.Is(err, errors.ErrUnsupported) {
		return unsupportedFile(method)
	}
	return &client.Error{Code: -32603, Message: err.Error()}
}

// unsupportedFile sends the daemon's call to the disk.
func unsupportedFile(method string) error {
	data, _ := json.Marshal(lspschema.ErrorData{Code: lspschema.CodeUnsupported})
	return &client.Error{Code: -32601, Message: "the ACP client does not serve " + method, Data: data}
}
