package acp

import (
	"encoding/json"
	"errors"
	"fmt"

	"scv/acp/schema"
	"scv/runtime/session"
)

// wireError is a JSON-RPC error; data.code names the reason for programs.
type wireError struct {
	Code    int            `json:"code"`
	Message string         `json:"message"`
	Data    *wireErrorData `json:"data,omitempty"`
}

type wireErrorData struct {
	Code string `json:"code"`
}

func (e *wireError) Error() string { return e.Message }

func rpcError(code int, dataCode, message string) *wireError {
	return &wireError{Code: code, Message: message, Data: &wireErrorData{Code: dataCode}}
}

func invalidParams(format string, args ...any) *wireError {
	return rpcError(schema.CodeInvalidParams, string(session.CodeInvalidParams), fmt.Sprintf(format, args...))
}

// toWire maps a runtime refusal onto ACP's codes, keeping scv's reason in
// data.code.
func toWire(err error) *wireError {
	var w *wireError
	if errors.As(err, &w) {
		return w
	}
	code := session.CodeOf(err)
	switch code {
	case session.CodeInvalidParams, session.CodeInvalidPrompt, session.CodeInvalidCwd:
		return rpcError(schema.CodeInvalidParams, string(code), err.Error())
	case session.CodeSessionNotFound:
		return rpcError(schema.CodeResourceNotFound, string(code), err.Error())
	case "":
		return rpcError(schema.CodeInternalError, "internal", err.Error())
	}
	return rpcError(schema.CodeInternalError, string(code), err.Error())
}

// unmarshalParams decodes params, naming what is wrong.
func unmarshalParams(raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return invalidParams("params are required")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return invalidParams("params.%s: expected %s, got %s", te.Field, te.Type, te.Value)
		}
		return invalidParams("params: %v", err)
	}
	return nil
}

func (d *Door) reply(id json.RawMessage, result any) {
	raw, err := json.Marshal(result)
	if err != nil {
		d.replyError(id, rpcError(schema.CodeInternalError, "internal", "encode result: "+err.Error()))
		return
	}
	msg := make([]byte, 0, len(raw)+len(id)+40)
	msg = append(msg, `{"jsonrpc":"2.0","id":`...)
	msg = append(msg, id...)
	msg = append(msg, `,"result":`...)
	msg = append(msg, raw...)
	msg = append(msg, "}\n"...)
	_ = d.out.write(msg)
}

func (d *Door) replyError(id json.RawMessage, e *wireError) {
	if id == nil {
		id = json.RawMessage("null")
	}
	raw, _ := json.Marshal(e)
	msg := make([]byte, 0, len(raw)+len(id)+40)
	msg = append(msg, `{"jsonrpc":"2.0","id":`...)
	msg = append(msg, id...)
	msg = append(msg, `,"error":`...)
	msg = append(msg, raw...)
	msg = append(msg, "}\n"...)
	_ = d.out.write(msg)
}

func (d *Door) notify(method string, params any) {
	_ = d.out.write(notification(method, params))
}

func notification(method string, params any) []byte {
	raw, err := json.Marshal(params)
	if err != nil {
		raw = []byte("{}")
	}
	msg := make([]byte, 0, len(raw)+len(method)+48)
	msg = append(msg, `{"jsonrpc":"2.0","method":"`...)
	msg = append(msg, method...)
	msg = append(msg, `","params":`...)
	msg = append(msg, raw...)
	return append(msg, "}\n"...)
}

// call sends a request to the client; its answer comes to handleResponse.
func (d *Door) call(id int64, method string, params any) {
	raw, err := json.Marshal(params)
	if err != nil {
		raw = []byte("{}")
	}
	msg := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":`, id, method)
	msg = append(msg, raw...)
	_ = d.out.write(append(msg, "}\n"...))
}
