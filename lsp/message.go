package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"go.lsp.dev/jsonrpc2"
)

// envelope is a decoded JSON-RPC message before it is classified.
type envelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// incoming is a request or notification from the client.
type incoming struct {
	id     jsonrpc2.ID // invalid for notifications
	idText string      // the id as a string (queue submitter, cancel key)
	method string
	params json.RawMessage
	isCall bool
	// A response to one of the server's own requests (scv/file/*):
	// result or rpcErr is set.
	isResponse     bool
	result, rpcErr json.RawMessage
}

// decode classifies one frame body. On failure it returns the id it could
// recover (for the error reply) and the error to answer with. A response
// to one of the server's requests comes back with isResponse set.
func decode(body []byte) (*incoming, jsonrpc2.ID, *jsonrpc2.Error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		if len(trimmed) > 0 && trimmed[0] == '[' && json.Valid(trimmed) {
			return nil, jsonrpc2.ID{}, jsonrpc2.NewError(codeInvalidRequest, "batch requests are not supported")
		}
		if json.Valid(trimmed) {
			return nil, jsonrpc2.ID{}, jsonrpc2.NewError(codeInvalidRequest, "a JSON-RPC message must be an object")
		}
		return nil, jsonrpc2.ID{}, jsonrpc2.NewError(codeParseError, "the frame is not valid JSON")
	}
	var env envelope
	if err := json.Unmarshal(trimmed, &env); err != nil {
		if !json.Valid(trimmed) {
			return nil, jsonrpc2.ID{}, jsonrpc2.NewError(codeParseError, "the frame is not valid JSON")
		}
		return nil, jsonrpc2.ID{}, jsonrpc2.Errorf(codeInvalidRequest, "not a JSON-RPC message: %v", err)
	}
	id, idText, idOK := parseID(env.ID)
	if env.JSONRPC != "2.0" {
		return nil, id, jsonrpc2.NewError(codeInvalidRequest, `"jsonrpc" must be "2.0"`)
	}
	if !idOK {
		return nil, jsonrpc2.ID{}, jsonrpc2.NewError(codeInvalidRequest, `"id" must be a string or an integer`)
	}
	if env.Method == nil {
		if len(env.Result) > 0 || len(env.Error) > 0 {
			return &incoming{id: id, idText: idText, isResponse: true, result: env.Result, rpcErr: env.Error}, id, nil
		}
		return nil, id, jsonrpc2.NewError(codeInvalidRequest, `the message has no "method"`)
	}
	if *env.Method == "" {
		return nil, id, jsonrpc2.NewError(codeInvalidRequest, `"method" is empty`)
	}
	// A notification is never answered, not even with an error: its
	// handler ignores params it cannot read.
	if p := bytes.TrimSpace(env.Params); id.IsValid() && len(p) > 0 && p[0] != '{' && p[0] != '[' && string(p) != "null" {
		return nil, id, jsonrpc2.NewError(codeInvalidParams, `"params" must be an object`)
	}
	return &incoming{id: id, idText: idText, method: *env.Method, params: env.Params, isCall: id.IsValid()}, id, nil
}

// parseID reads a request id; absent or null gives an invalid ID, which
// makes the message a notification.
func parseID(raw json.RawMessage) (jsonrpc2.ID, string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return jsonrpc2.ID{}, "", true
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return jsonrpc2.ID{}, "", false
		}
		return jsonrpc2.NewStringID(s), s, true
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return jsonrpc2.ID{}, "", false
	}
	return jsonrpc2.NewNumberID(n), strconv.FormatInt(n, 10), true
}

// unmarshalParams decodes params into v strictly: unknown fields are
// allowed (clients add their own), wrong types and missing objects are not.
func unmarshalParams(params json.RawMessage, v any) error {
	if len(bytes.TrimSpace(params)) == 0 || string(bytes.TrimSpace(params)) == "null" {
		params = json.RawMessage("{}")
	}
	if err := json.Unmarshal(params, v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if ok := asTypeError(err, &typeErr); ok {
			return invalidParams(fmt.Sprintf("params.%s must be %s, not %s", typeErr.Field, typeErr.Type, typeErr.Value))
		}
		return invalidParams("invalid params: " + err.Error())
	}
	return nil
}

func asTypeError(err error, target **json.UnmarshalTypeError) bool {
	t, ok := err.(*json.UnmarshalTypeError)
	if ok {
		*target = t
	}
	return ok
}
