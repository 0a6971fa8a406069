package mcp

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"scv/runtime/config"
)

// rawHTTPServer answers MCP over streamable HTTP by hand, each POST with
// one application/json body, as a hostile server may: toolsList writes
// the body of the tools/list answer. It offers no standalone SSE stream.
func rawHTTPServer(t *testing.T, toolsList func(w io.Writer, id json.RawMessage)) config.MCPServer {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var msg rawMessage
		if err := json.NewDecoder(r.Body).Decode(&msg); err != nil || len(msg.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch msg.Method {
		case "initialize":
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			_ = json.Unmarshal(msg.Params, &p)
			_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": map[string]any{
				"protocolVersion": p.ProtocolVersion,
				"capabilities":    map[string]any{"tools": map[string]any{}},
				"serverInfo":      map[string]any{"name": "scv-test-http", "version": "1"},
			}})
		case "tools/list":
			toolsList(w, msg.ID)
		default:
			_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID,
				"error": map[string]any{"code": -32601, "message": "method not found"}})
		}
	}))
	t.Cleanup(srv.Close)
	cfg := config.NewMCPServer()
	cfg.URL = srv.URL
	return cfg
}

// One answer of an HTTP server is bounded like one message of a stdio
// server: the SDK reads an application/json body whole, however long.
func TestHTTPServerAnswerOverTheMessageBound(t *testing.T) {
	cfg := rawHTTPServer(t, func(w io.Writer, id json.RawMessage) {
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":{"tools":[{"name":"big","inputSchema":{"type":"object"},"description":"`)
		chunk := strings.Repeat("x", 1<<20)
		for range MaxServerMessageBytes>>20 + 1 {
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
		}
		io.WriteString(w, `"}]}}`)
	})
	m, _ := startManager(t, map[string]config.MCPServer{"web": cfg}, Options{})
	settle(t, m)
	st := statusOf(m, "web")
	if st.State != StateFailed || !strings.Contains(st.Error, "MaxServerMessageBytes") {
		t.Fatalf("a tool list answer over MaxServerMessageBytes: %s %q", st.State, st.Error)
	}
}
