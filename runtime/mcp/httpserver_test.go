package mcp

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"scv/runtime/config"
)

// rawHTTPServer answers MCP over streamable HTTP by hand, as a hostile
// server may: toolsList writes the answer to tools/list (its headers and
// body); every other call gets one application/json body. With
// hangAnswers, a POST carrying scv's answer to a request of the server is
// never answered. It offers no standalone SSE stream.
func rawHTTPServer(t *testing.T, hangAnswers bool, toolsList func(w http.ResponseWriter, id json.RawMessage)) config.MCPServer {
	t.Helper()
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var msg rawMessage
		if err := json.NewDecoder(r.Body).Decode(&msg); err != nil || len(msg.ID) == 0 || msg.Method == "" {
			if hangAnswers && len(msg.ID) > 0 {
				select {
				case <-r.Context().Done():
				case <-stop:
				}
				return
			}
			w.WriteHeader(http.StatusAccepted)
			return
		}
		if msg.Method == "tools/list" {
			toolsList(w, msg.ID)
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
		default:
			_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID,
				"error": map[string]any{"code": -32601, "message": "method not found"}})
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stop) })
	cfg := config.NewMCPServer()
	cfg.URL = srv.URL
	return cfg
}

// One answer of an HTTP server is bounded like one message of a stdio
// server: the SDK reads an application/json body whole, however long.
func TestHTTPServerAnswerOverTheMessageBound(t *testing.T) {
	cfg := rawHTTPServer(t, false, func(w http.ResponseWriter, id json.RawMessage) {
		w.Header().Set("Content-Type", "application/json")
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

// The bound on a server's unanswered requests holds over HTTP too: a
// server that sends requests on an event stream and never takes scv's
// answers would otherwise queue them in scv without end.
func TestHTTPServerRequestFloodEndsTheConnection(t *testing.T) {
	cfg := rawHTTPServer(t, true, func(w http.ResponseWriter, id json.RawMessage) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 2 * MaxUnansweredServerRequests {
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":\"flood-%d\",\"method\":\"ping\"}\n\n", i)
		}
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"tools\":[]}}\n\n", id)
	})
	m, _ := startManager(t, map[string]config.MCPServer{"web": cfg}, Options{})
	settle(t, m)
	st := statusOf(m, "web")
	if st.State != StateFailed || !strings.Contains(st.Error, "MaxUnansweredServerRequests") {
		t.Fatalf("a flood of requests whose answers the server never takes: %s %q", st.State, st.Error)
	}
}
