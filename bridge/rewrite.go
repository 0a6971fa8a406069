package bridge

import (
	"bytes"
	"encoding/json"
	"fmt"

	"scv/runtime/config"
)

// withFlags carries the bridge's command-line flags to the daemon: when
// body is the editor's initialize request it returns a copy whose
// params.initializationOptions.scv.flags holds flags (replacing whatever
// the editor put there), and true. The daemon applies them to every session
// started on the connection, over the session/start params, as `scv lsp`
// serving in-process applies its flags.
//
// Anything else in the request is kept. An initializationOptions that is
// not an object is replaced (the server reads only its scv member); a
// request whose params or scv member is malformed is passed on unchanged,
// and the daemon refuses it.
func withFlags(body []byte, flags config.Overrides) ([]byte, bool) {
	if !bytes.Contains(body, []byte(`"initialize"`)) {
		return body, false
	}
	var msg map[string]json.RawMessage
	if json.Unmarshal(body, &msg) != nil || string(msg["method"]) != `"initialize"` || msg["id"] == nil {
		return body, false
	}
	params, ok := object(msg["params"])
	if !ok {
		return body, true
	}
	opts, ok := object(params["initializationOptions"])
	if !ok {
		opts = map[string]json.RawMessage{}
	}
	scv, ok := object(opts["scv"])
	if !ok {
		return body, true
	}
	scv["flags"] = mustMarshal(flags)
	opts["scv"] = mustMarshal(scv)
	params["initializationOptions"] = mustMarshal(opts)
	msg["params"] = mustMarshal(params)
	return mustMarshal(msg), true
}

// object decodes raw as a JSON object; absent or null is an empty object.
func object(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	m := map[string]json.RawMessage{}
	if len(raw) == 0 || string(raw) == "null" {
		return m, true
	}
	if json.Unmarshal(raw, &m) != nil {
		return nil, false
	}
	return m, true
}

// mustMarshal encodes values that came from JSON or are plain structs, so
// it cannot fail.
func mustMarshal(v any) json.RawMessage {
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("bridge: re-encode initialize: %v", err))
	}
	return data
}

// responseID finds the id of a response from the first bytes of its body:
// the daemon writes "id" before "result" or "error", so a reply too large
// to relay can still be answered. It reports false for a notification, a
// request, or a head that ends before the id.
func responseID(head []byte) (json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(head))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, false
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, false
		}
		switch key {
		case "id":
			return value, true
		case "method":
			return nil, false
		}
	}
	return nil, false
}

// responseLimitAnswer replaces a reply of length bytes the editor's limit
// cannot take: the same error the daemon sends for a reply over its own
// limit, so the editor's request ends instead of waiting forever.
func responseLimitAnswer(id json.RawMessage, length int64, limit int) []byte {
	return mustMarshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      id,
		"error": map[string]any{
			"code": codeApplication,
			"message": fmt.Sprintf("the daemon's reply of %d bytes exceeds this scv lsp's limit of %d bytes (protocol.max_server_frame_bytes in %s); raise it and restart the daemon and the editor's scv lsp",
				length, limit, "$"+config.HomeEnv+"/"+config.FileName),
			"data": map[string]any{"code": ErrorCodeResponseLimit, "limit": limit},
		},
	})
}
