package lsp_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"scv/lsp/lsptest"
	"scv/lsp/schema"
	"scv/runtime/session"
)

// Error codes of the protocol.
const (
	codeParse          = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeNotInitialized = -32002
	codeApplication    = -32000
)

// rawExpect sends body in one frame and checks the error answered to id
// (the JSON value, "null" when the server cannot know it).
func rawExpect(t *testing.T, ed *lsptest.Editor, body, id string, code int64, dataCode string) {
	t.Helper()
	resp := ed.RawCall(body, id)
	lsptest.ExpectError(t, resp.Err(), code, dataCode)
}

// request encodes one JSON-RPC request with a string id.
func request(id, method string, params any) string {
	raw, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		panic(err)
	}
	return string(raw)
}

func TestBadFramesAndMessages(t *testing.T) {
	cases := []struct {
		name     string
		body     string
		id       string // the JSON id the answer must carry
		code     int64
		dataCode string
	}{
		{"truncated JSON", `{"jsonrpc":"2.0","id":1,"method":`, "null", codeParse, ""},
		{"not JSON", `hello, server`, "null", codeParse, ""},
		{"empty body", ``, "null", codeParse, ""},
		{"JSON array", `[1,2,3]`, "null", codeInvalidRequest, ""},
		{"JSON string", `"scv/session/list"`, "null", codeInvalidRequest, ""},
		{"object without jsonrpc", `{"hello":"world"}`, "null", codeInvalidRequest, ""},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":"v1","method":"scv/session/list"}`, `"v1"`, codeInvalidRequest, ""},
		{"no method", `{"jsonrpc":"2.0","id":"nm"}`, `"nm"`, codeInvalidRequest, ""},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"scv/session/list"}`, "null", codeInvalidRequest, ""},
		{"method not a string", `{"jsonrpc":"2.0","id":"ms","method":7}`, "null", codeInvalidRequest, ""},
		{"params a number", `{"jsonrpc":"2.0","id":"pn","method":"scv/session/list","params":5}`, `"pn"`, codeInvalidParams, ""},
		{"unknown method", request("um", "scv/does/not/exist", map[string]any{}), `"um"`, codeMethodNotFound, ""},
		{"unknown LSP method", request("ul", "textDocument/hover", map[string]any{}), `"ul"`, codeMethodNotFound, ""},
		{"second initialize", request("si", "initialize", map[string]any{"capabilities": map[string]any{}}), `"si"`, codeInvalidRequest, ""},
	}
	each(t, func(t *testing.T, env *lsptest.Env) {
		ed := connect(t, env)
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				rawExpect(t, ed, tc.body, tc.id, tc.code, tc.dataCode)
				barrier(t, ed) // the connection survived
			})
		}
		// A response from the client is ignored, and so are notifications
		// the server does not handle; $/cancelRequest of nothing is fine.
		mark := ed.Frames()
		ed.WriteFrame(`{"jsonrpc":"2.0","id":99,"result":null}`)
		ed.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": "file:///x"}})
		ed.Notify("$/setTrace", map[string]any{"value": "verbose"})
		ed.Notify("scv/not/a/notification", map[string]any{})
		ed.Notify("$/cancelRequest", map[string]any{"id": 12345})
		ed.Notify("$/cancelRequest", map[string]any{"id": "gone"})
		ed.Notify("$/cancelRequest", "not even an object")
		barrier(t, ed)
		for _, r := range ed.Responses(mark) {
			if !r.IDIs("2") && r.Error != nil { // anything but the barrier's reply
				t.Errorf("the server answered a notification or response: id %s error %v", r.ID, r.Error)
			}
		}
		if notes := ed.Notes("", func(n lsptest.Note) bool { return n.Index >= mark }); len(notes) != 0 {
			t.Errorf("unexpected notifications: %v", notes)
		}
	})
}

func TestBadParams(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		env.WriteFile("file.txt", "a file\n")
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		outside := t.TempDir()
		cases := []struct {
			name     string
			method   string
			params   any
			code     int64
			dataCode string
		}{
			// Wrong types.
			{"cwd a number", "scv/session/start", map[string]any{"cwd": 42}, codeInvalidParams, ""},
			{"prompt a number", "scv/turn/start", map[string]any{"sessionId": sid, "prompt": 5}, codeInvalidParams, ""},
			{"paused a string", "scv/session/pause", map[string]any{"sessionId": sid, "paused": "yes"}, codeInvalidParams, ""},
			{"revision a string", "scv/queue/remove", map[string]any{"sessionId": sid, "queueId": "q1", "revision": "1"}, codeInvalidParams, ""},
			{"afterSeq negative", "scv/session/attach", map[string]any{"sessionId": sid, "afterSeq": -1}, codeInvalidParams, ""},
			{"sessionId a number", "scv/queue/list", map[string]any{"sessionId": 7}, codeInvalidParams, ""},
			{"params an array", "scv/queue/list", []any{sid}, codeInvalidParams, ""},
			{"context not a list", "scv/turn/start", map[string]any{"sessionId": sid, "prompt": "p", "context": "file.txt"}, codeInvalidParams, ""},
			{"unknown decision", "scv/approval/resolve", map[string]any{"sessionId": sid, "approvalId": "a", "decision": "maybe"}, codeInvalidParams, ""},
			{"unknown approval policy", "scv/session/start", map[string]any{"cwd": env.Work, "approvalPolicy": "sometimes"}, codeInvalidParams, ""},
			// Missing params.
			{"no sessionId", "scv/turn/start", map[string]any{"prompt": "p"}, codeInvalidParams, ""},
			{"no params at all", "scv/turn/start", nil, codeInvalidParams, ""},
			{"no prompt", "scv/turn/start", map[string]any{"sessionId": sid}, codeInvalidParams, ""},
			{"no turnId", "scv/turn/cancel", map[string]any{"sessionId": sid}, codeInvalidParams, ""},
			{"no paused", "scv/session/pause", map[string]any{"sessionId": sid}, codeInvalidParams, ""},
			{"no revision", "scv/queue/update", map[string]any{"sessionId": sid, "queueId": "q1", "prompt": "p"}, codeInvalidParams, ""},
			{"no queueId", "scv/queue/move", map[string]any{"sessionId": sid, "revision": 1}, codeInvalidParams, ""},
			{"no approvalId", "scv/approval/resolve", map[string]any{"sessionId": sid, "decision": "approve"}, codeInvalidParams, ""},
			// Unknown ids.
			{"unknown session: attach", "scv/session/attach", map[string]any{"sessionId": "nope"}, codeApplication, "session_not_found"},
			{"unknown session: detach", "scv/session/detach", map[string]any{"sessionId": "nope"}, codeApplication, "session_not_found"},
			{"unknown session: close", "scv/session/close", map[string]any{"sessionId": "nope"}, codeApplication, "session_not_found"},
			{"unknown session: clear", "scv/session/clear", map[string]any{"sessionId": "nope"}, codeApplication, "session_not_found"},
			{"unknown session: pause", "scv/session/pause", map[string]any{"sessionId": "nope", "paused": true}, codeApplication, "session_not_found"},
			{"unknown session: turn/start", "scv/turn/start", map[string]any{"sessionId": "nope", "prompt": "p"}, codeApplication, "session_not_found"},
			{"unknown session: turn/cancel", "scv/turn/cancel", map[string]any{"sessionId": "nope", "turnId": "t"}, codeApplication, "session_not_found"},
			{"unknown session: queue/list", "scv/queue/list", map[string]any{"sessionId": "nope"}, codeApplication, "session_not_found"},
			{"unknown session: queue/update", "scv/queue/update", map[string]any{"sessionId": "nope", "queueId": "q1", "revision": 1, "prompt": "p"}, codeApplication, "session_not_found"},
			{"unknown session: queue/move", "scv/queue/move", map[string]any{"sessionId": "nope", "queueId": "q1", "revision": 1}, codeApplication, "session_not_found"},
			{"unknown session: queue/remove", "scv/queue/remove", map[string]any{"sessionId": "nope", "queueId": "q1", "revision": 1}, codeApplication, "session_not_found"},
			{"unknown session: approval", "scv/approval/resolve", map[string]any{"sessionId": "nope", "approvalId": "a", "decision": "approve"}, codeApplication, "session_not_found"},
			{"unknown turn", "scv/turn/cancel", map[string]any{"sessionId": sid, "turnId": "nope"}, codeApplication, "turn_not_found"},
			{"unknown queue entry: update", "scv/queue/update", map[string]any{"sessionId": sid, "queueId": "nope", "revision": 1, "prompt": "p"}, codeApplication, "queue_not_found"},
			{"unknown queue entry: move", "scv/queue/move", map[string]any{"sessionId": sid, "queueId": "nope", "revision": 1}, codeApplication, "queue_not_found"},
			{"unknown queue entry: remove", "scv/queue/remove", map[string]any{"sessionId": sid, "queueId": "nope", "revision": 1}, codeApplication, "queue_not_found"},
			{"unknown approval", "scv/approval/resolve", map[string]any{"sessionId": sid, "approvalId": "nope", "decision": "deny"}, codeApplication, "approval_not_found"},
			// Workspaces.
			{"cwd empty", "scv/session/start", map[string]any{"cwd": ""}, codeApplication, "invalid_cwd"},
			{"cwd relative", "scv/session/start", map[string]any{"cwd": "some/dir"}, codeApplication, "invalid_cwd"},
			{"cwd dot", "scv/session/start", map[string]any{"cwd": "."}, codeApplication, "invalid_cwd"},
			{"cwd missing", "scv/session/start", map[string]any{"cwd": filepath.Join(env.Work, "missing")}, codeApplication, "invalid_cwd"},
			{"cwd a file", "scv/session/start", map[string]any{"cwd": filepath.Join(env.Work, "file.txt")}, codeApplication, "invalid_cwd"},
			// Context outside the workspace.
			{"context outside", "scv/turn/start", ctxParams(sid, "file://"+outside+"/x.txt"), codeInvalidParams, ""},
			{"context dot-dot", "scv/turn/start", ctxParams(sid, "file://"+env.Work+"/../escape.txt"), codeInvalidParams, ""},
			{"context /etc/passwd", "scv/turn/start", ctxParams(sid, "file:///etc/passwd"), codeInvalidParams, ""},
			{"context not a file URI", "scv/turn/start", ctxParams(sid, "https://example.com/x"), codeInvalidParams, ""},
			{"context missing file", "scv/turn/start", ctxParams(sid, "file://"+env.Work+"/missing.txt"), codeInvalidParams, ""},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				err := ed.Call(tc.method, tc.params, nil)
				e := lsptest.ExpectError(t, err, tc.code, tc.dataCode)
				if strings.Contains(e.Message, lsptest.TestAPIKey) {
					t.Errorf("error message leaks the key: %s", e.Message)
				}
			})
		}
		// Nothing above started a session or a turn.
		var list struct {
			Sessions []session.Summary `json:"sessions"`
		}
		ed.MustCall("scv/session/list", nil, &list)
		if len(list.Sessions) != 1 || list.Sessions[0].State != "idle" {
			t.Errorf("sessions after bad requests: %+v", list.Sessions)
		}
		if n := len(ed.Notes(schema.EvTurnStarted, nil)); n != 0 {
			t.Errorf("%d turns started", n)
		}
	})
}

func ctxParams(sid, uri string) map[string]any {
	return map[string]any{"sessionId": sid, "prompt": "look", "context": []map[string]any{{"uri": uri}}}
}

func TestRequestBeforeInitialize(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		ed := env.Connect()
		for _, method := range []string{"scv/session/list", "scv/session/start", "shutdown", "scv/nope"} {
			err := ed.Call(method, map[string]any{"cwd": env.Work}, nil)
			lsptest.ExpectError(t, err, codeNotInitialized, "")
		}
		ed.Notify("initialized", map[string]any{}) // ignored, not fatal
		ed.Initialize()
		ed.MustCall("scv/session/list", nil, nil)
	})
}

func TestVersionMismatch(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		ed := env.Connect()
		err := ed.Call("initialize", map[string]any{
			"capabilities":          map[string]any{},
			"initializationOptions": map[string]any{"scv": map[string]any{"protocolVersion": 2}},
		}, nil)
		e := lsptest.ExpectError(t, err, codeInvalidRequest, "version_mismatch")
		if !strings.Contains(e.Message, "2") || !strings.Contains(e.Message, "1") {
			t.Errorf("message %q should name both versions", e.Message)
		}
		// The refused initialize did not count: a matching one works.
		var res lsptest.InitializeResult
		ed.MustCall("initialize", map[string]any{
			"capabilities":          map[string]any{},
			"initializationOptions": map[string]any{"scv": map[string]any{"protocolVersion": 1}},
		}, &res)
		if res.Capabilities.Experimental.SCV.ProtocolVersion != 1 || res.ServerInfo.Name != "scv" {
			t.Errorf("initialize = %+v", res)
		}
	})
}

func TestOversizedFrameIsSkipped(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		const limit = 4096
		env.Set("protocol", "max_client_frame_bytes", limit)
		ed := env.Connect()
		res := ed.Initialize()
		if got := res.Capabilities.Experimental.SCV.Limits.MaxClientFrameBytes; got != limit {
			t.Errorf("advertised maxClientFrameBytes = %d, want %d", got, limit)
		}
		sid := ed.StartSession("", nil).SessionID
		big := request("big", "scv/turn/start", map[string]any{"sessionId": sid, "prompt": strings.Repeat("x", 3*limit)})
		rawExpect(t, ed, big, "null", codeInvalidRequest, "frame_too_large")
		// The next request on the same connection works, twice over.
		rawExpect(t, ed, big, "null", codeInvalidRequest, "frame_too_large")
		ed.MustCall("scv/session/list", nil, nil)
		if n := len(ed.Notes(schema.EvTurnStarted, nil)); n != 0 {
			t.Errorf("an oversized frame started %d turns", n)
		}
	})
}

func TestNonLSPFramingClosesConnection(t *testing.T) {
	cases := map[string]string{
		"HTTP request":         "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n",
		"bad Content-Length":   "Content-Length: twelve\r\n\r\n{}",
		"negative length":      "Content-Length: -5\r\n\r\n",
		"no Content-Length":    "Content-Type: application/json\r\n\r\n{}",
		"endless header":       "X-Padding: " + strings.Repeat("a", 64*1024) + "\r\n\r\n",
		"JSON without headers": `{"jsonrpc":"2.0","id":1,"method":"initialize"}` + "\r\n\r\n",
	}
	each(t, func(t *testing.T, env *lsptest.Env) {
		for name, raw := range cases {
			t.Run(name, func(t *testing.T) {
				env := lsptest.NewEnv(t, env.Dialer)
				ed := connect(t, env)
				// The server may close before reading everything: a failed
				// write is fine, what the server does about it is the test.
				_, _ = ed.Server().Conn().Write([]byte(raw))
				ed.AwaitClosed(env.Timeout)
				if code := ed.WaitExit(); code == 0 {
					t.Errorf("exit status 0 after broken framing, want non-zero; log:\n%s", ed.Server().Log())
				}
				if log := ed.Server().Log(); !strings.Contains(log, "framing") {
					t.Errorf("the log does not say what was wrong:\n%s", log)
				}
			})
		}
	})
}
