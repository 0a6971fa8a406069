package mcp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"scv/runtime/config"
)

// The raw server speaks MCP's JSON-RPC by hand instead of through the SDK,
// so a test can script what a hostile server does that the SDK's server
// never would: a flood of notifications, a tool list it never answers,
// schemas and pages of any size. Its script comes in rawScriptEnv.
const rawScriptEnv = "SCV_MCPTEST_RAW"

// rawScript is what one raw server does. Its tool "lists" answers how
// many tool lists it was asked for, "pages" how many pages.
type rawScript struct {
	Pages        int // pages of the tool list; 0 means 1
	ToolsPerPage int // 0 means 1
	// SchemaBytes pads every listed tool's input schema to about this size.
	SchemaBytes int
	// BigSchemaBytes, if set, adds a tool "big" whose schema is this size.
	BigSchemaBytes int
	// Flood sends this many notifications/tools/list_changed after the
	// first tool list, then a ping; tool lists asked for meanwhile are
	// answered only once the ping is, when the client has handled every
	// notification, and then hold a tool "after_flood".
	Flood int
	// HangRefresh never answers a tools/list after the first. Calling any
	// tool but "lists" sends a list_changed.
	HangRefresh bool
	// Deaf stops reading stdin once the first tool list is answered, as a
	// server stuck in a loop would: what scv writes to it fills the pipe.
	Deaf bool
	// RequestFlood sends this many ping requests once the first tool list
	// is answered, then reads no more, as Deaf: scv's answers fill the
	// pipe while the requests keep arriving.
	RequestFlood int
}

// rawServer starts the test binary as a raw server running script.
func rawServer(t testing.TB, script rawScript) config.MCPServer {
	t.Helper()
	cfg, _ := helperServer(t, "raw")
	b, err := json.Marshal(script)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Env[rawScriptEnv] = string(b)
	return cfg
}

type rawMessage struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
}

// runRawServer serves the script of rawScriptEnv on stdin and stdout.
func runRawServer() {
	var script rawScript
	if err := json.Unmarshal([]byte(os.Getenv(rawScriptEnv)), &script); err != nil {
		fmt.Fprintln(os.Stderr, "raw script:", err)
		os.Exit(2)
	}
	script.Pages, script.ToolsPerPage = max(script.Pages, 1), max(script.ToolsPerPage, 1)
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	var outMu sync.Mutex
	send := func(msg any) {
		b, _ := json.Marshal(msg)
		outMu.Lock()
		defer outMu.Unlock()
		out.Write(b)
		out.WriteByte('\n')
		out.Flush()
	}
	reply := func(id json.RawMessage, result any) {
		send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	}
	listChanged := map[string]any{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
	lists, pages := 0, 0
	flooded := false
	var held []rawMessage // tool lists waiting for the flood's ping
	page := func(msg rawMessage) {
		var p struct{ Cursor string }
		_ = json.Unmarshal(msg.Params, &p)
		n := 0
		fmt.Sscan(p.Cursor, &n)
		tools := []any{}
		if n == 0 {
			tools = append(tools, rawTool("lists", 0), rawTool("pages", 0))
			if script.BigSchemaBytes > 0 {
				tools = append(tools, rawTool("big", script.BigSchemaBytes))
			}
			if flooded {
				tools = append(tools, rawTool("after_flood", 0))
			}
		}
		for i := range script.ToolsPerPage {
			tools = append(tools, rawTool(fmt.Sprintf("t_%d_%d", n, i), script.SchemaBytes))
		}
		result := map[string]any{"tools": tools}
		if n+1 < script.Pages {
			result["nextCursor"] = fmt.Sprint(n + 1)
		}
		reply(msg.ID, result)
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return
		}
		var msg rawMessage
		if json.Unmarshal(line, &msg) != nil {
			fmt.Fprintf(os.Stderr, "raw: not a message: %.200s\n", line)
			continue
		}
		switch {
		case msg.Method == "initialize":
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			_ = json.Unmarshal(msg.Params, &p)
			reply(msg.ID, map[string]any{
				"protocolVersion": p.ProtocolVersion,
				"capabilities":    map[string]any{"tools": map[string]any{"listChanged": true}},
				"serverInfo":      map[string]any{"name": "scv-test-raw", "version": "1"},
			})
		case msg.Method == "tools/list":
			var p struct{ Cursor string }
			_ = json.Unmarshal(msg.Params, &p)
			if p.Cursor == "" {
				lists++
			}
			pages++
			switch {
			case lists == 1:
				page(msg)
				for i := range script.RequestFlood {
					send(map[string]any{"jsonrpc": "2.0", "id": fmt.Sprint("flood-", i), "method": "ping"})
				}
				if script.Deaf || script.RequestFlood > 0 {
					for { // never reads again; killed with its group
						time.Sleep(time.Hour)
					}
				}
				if p.Cursor == "" && script.Pages == 1 || p.Cursor == fmt.Sprint(script.Pages-1) {
					for range script.Flood {
						send(listChanged)
					}
					if script.Flood > 0 {
						send(map[string]any{"jsonrpc": "2.0", "id": "flood-ping", "method": "ping"})
					}
				}
			case script.HangRefresh:
				// never answered
			case script.Flood > 0 && !flooded:
				held = append(held, msg)
			default:
				page(msg)
			}
		case msg.Method == "tools/call":
			var p struct{ Name string }
			_ = json.Unmarshal(msg.Params, &p)
			count := lists
			switch p.Name {
			case "lists":
			case "pages":
				count = pages
			default:
				send(listChanged)
			}
			reply(msg.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": fmt.Sprint(count)}}})
		case msg.Method == "ping":
			reply(msg.ID, map[string]any{})
		case msg.Method == "" && strings.Contains(string(msg.ID), "flood-ping"):
			flooded = true
			for _, h := range held {
				page(h)
			}
			held = nil
		case len(msg.ID) > 0 && msg.Method != "":
			// server/discover and whatever else: not offered, which makes
			// the client fall back to initialize.
			send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": -32601, "message": "method not found"}})
		}
	}
}

// rawTool is a tool whose input schema is about schemaBytes long.
func rawTool(name string, schemaBytes int) map[string]any {
	schema := map[string]any{"type": "object", "properties": map[string]any{}}
	if schemaBytes > 0 {
		schema["description"] = strings.Repeat("x", schemaBytes)
	}
	return map[string]any{"name": name, "inputSchema": schema}
}
