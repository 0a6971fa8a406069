package lsp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"scv/internal/fakeopenai"
	"scv/internal/mcptest"
	"scv/lsp/lsptest"
	"scv/lsp/schema"
)

// markerEnv is set in the environment of every MCP server these tests
// start, to a value unique to the test, so the process table shows which
// processes are theirs.
const markerEnv = "SCV_MCP_TEST_MARKER"

var markers atomic.Int64

func newMarker() string {
	return fmt.Sprintf("%d-%d", os.Getpid(), markers.Add(1))
}

// markedProcesses lists the processes whose environment holds marker.
func markedProcesses(t *testing.T, marker string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	want := []byte(markerEnv + "=" + marker + "\x00")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		environ, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && bytes.Contains(environ, want) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// everythingServer configures @modelcontextprotocol/server-everything over
// stdio as server NAME of the user's config.
func everythingServer(t *testing.T, env *lsptest.Env, name, marker string) {
	node, script := mcptest.Script(t, mcptest.Everything)
	env.Set("mcp_servers", name, map[string]any{
		"command":             node,
		"args":                []string{script, "stdio"},
		"startup_timeout_sec": 30,
		"env":                 map[string]string{markerEnv: marker},
	})
}

func mcpList(t *testing.T, ed *lsptest.Editor, sid string) []schema.MCPServerInfo {
	t.Helper()
	var res schema.McpListResult
	ed.MustCall(schema.MethodMcpList, schema.SessionRef{SessionID: sid}, &res)
	return res.Servers
}

func TestModelCallsAnMCPTool(t *testing.T) {
	mcptest.Script(t, mcptest.Everything) // skip before the parallel subtests when missing
	each(t, func(t *testing.T, env *lsptest.Env) {
		marker := newMarker()
		everythingServer(t, env, "everything", marker)
		ed := connect(t, env)
		env.OpenAI.Enqueue(
			toolReply("call_1", "mcp__everything__echo", map[string]string{"message": "hello-mcp"}),
			fakeopenai.Reply{Chunks: []string{"done"}},
		)
		sid := ed.StartSession("", nil).SessionID
		ed.AwaitNotification(schema.EvMcpStatus, lsptest.All(lsptest.ForSession(sid), lsptest.WithStr("name", "everything"), lsptest.WithStr("state", "starting")), 0)
		turn := ed.StartTurn(sid, "echo something").TurnID

		asked := decodeApproval(t, ed.AwaitNotification(schema.EvApprovalRequested, lsptest.ForTurn(turn), 0))
		if asked.Risk != "mcp" || asked.Name != "mcp__everything__echo" {
			t.Errorf("approval %+v, want risk mcp for mcp__everything__echo", asked.Approval)
		}
		for _, want := range []string{"MCP server: everything", "tool: echo", "\"message\": \"hello-mcp\""} {
			if !strings.Contains(asked.Summary, want) {
				t.Errorf("approval summary %q lacks %q", asked.Summary, want)
			}
		}
		ed.Resolve(sid, asked.ApprovalID, "approve")
		ed.ExpectTerminal(turn, schema.EvTurnCompleted)

		var done schema.ToolCompletedParams
		if err := ed.AwaitNotification(schema.EvToolCompleted, lsptest.ForTurn(turn), 0).Decode(&done); err != nil {
			t.Fatal(err)
		}
		if !done.Success || !strings.Contains(done.Output, "hello-mcp") {
			t.Errorf("tool/completed %+v", done)
		}
		if got := toolResult(t, env, 1, "call_1"); !strings.Contains(got, "hello-mcp") {
			t.Errorf("the model was told %q, want the echo", got)
		}
		reqs, err := env.OpenAI.WaitRequests(1, env.Timeout)
		if err != nil {
			t.Fatal(err)
		}
		if !offers(reqs[0].Tools, "mcp__everything__echo") || !offers(reqs[0].Tools, "read_file") {
			t.Errorf("the first request offers %d tools without mcp__everything__echo and read_file", len(reqs[0].Tools))
		}
		ed.AwaitNotification(schema.EvMcpStatus, lsptest.All(lsptest.ForSession(sid), lsptest.WithStr("state", "ready")), 0)

		servers := mcpList(t, ed, sid)
		if len(servers) != 1 || servers[0].Name != "everything" || servers[0].State != "ready" || servers[0].Transport != "stdio" || !listsTool(servers[0], "mcp__everything__echo", "echo") {
			t.Fatalf("scv/mcp/list = %+v", servers)
		}

		pids := markedProcesses(t, marker)
		if len(pids) == 0 {
			t.Fatal("no process carries the test's marker while the session is open")
		}
		ed.MustCall(schema.MethodSessionClose, schema.SessionRef{SessionID: sid}, nil)
		for _, pid := range pids {
			if err := lsptest.WaitProcessGone(pid, env.Timeout); err != nil {
				t.Errorf("after session close: %v", err)
			}
		}
	})
}

func offers(tools []fakeopenai.Tool, name string) bool {
	for _, tool := range tools {
		if tool.Function.Name == name {
			return true
		}
	}
	return false
}

func listsTool(s schema.MCPServerInfo, name, tool string) bool {
	for _, t := range s.Tools {
		if t.Name == name && t.Tool == tool {
			return true
		}
	}
	return false
}

// A server given at session start whose command does not exist fails with
// its reason; the session goes on without it.
func TestMCPServerThatCannotStartFails(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		ed := connect(t, env)
		missing := filepath.Join(env.Work, "no-such-mcp-server")
		sid := ed.StartSession("", &schema.SessionStartParams{MCPServers: map[string]json.RawMessage{
			"broken": json.RawMessage(fmt.Sprintf(`{"command":%q}`, missing)),
		}}).SessionID
		failed := ed.AwaitNotification(schema.EvMcpStatus, lsptest.All(lsptest.ForSession(sid), lsptest.WithStr("name", "broken"), lsptest.WithStr("state", "failed")), 0)
		if !strings.Contains(failed.Str("error"), "no-such-mcp-server") {
			t.Errorf("failed status without the reason: %s", failed)
		}
		servers := mcpList(t, ed, sid)
		if len(servers) != 1 || servers[0].State != "failed" || servers[0].Error == "" {
			t.Fatalf("scv/mcp/list = %+v", servers)
		}
		env.OpenAI.Enqueue(fakeopenai.Reply{Chunks: []string{"still here"}})
		ed.ExpectTerminal(ed.StartTurn(sid, "hello").TurnID, schema.EvTurnCompleted)
	})
}

// A chat-only session (noTools) starts no MCP server and says so.
func TestChatOnlySessionStartsNoMCPServer(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		env.Set("mcp_servers", "never", map[string]any{"command": filepath.Join(env.Work, "must-not-run")})
		ed := connect(t, env)
		sid := ed.StartSession("", &schema.SessionStartParams{NoTools: true}).SessionID
		servers := mcpList(t, ed, sid)
		if len(servers) != 1 || servers[0].Name != "never" || servers[0].State != "stopped" || !strings.Contains(servers[0].Error, "tools are disabled") {
			t.Fatalf("scv/mcp/list = %+v", servers)
		}
		if notes := ed.Notes(schema.EvMcpStatus, lsptest.ForSession(sid)); len(notes) != 0 {
			t.Errorf("a chat-only session reported MCP states: %v", notes)
		}
	})
}

func TestSessionStartRefusesBadMCPServers(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		ed := connect(t, env)
		for raw, want := range map[string]string{
			`{"command":"x","startup_timeout_sec":5}`: `params.mcpServers.bad: unknown field "startup_timeout_sec"`,
			`{"command":"x","startupTimeoutSec":-1}`:  "params.mcpServers.bad.startupTimeoutSec: must be positive",
			`{"url":"ftp://host"}`:                    "params.mcpServers.bad.url: must be an http",
			`{}`:                                      "params.mcpServers.bad: needs command",
		} {
			_, err := ed.TryStartSession("", &schema.SessionStartParams{MCPServers: map[string]json.RawMessage{"bad": json.RawMessage(raw)}})
			e := lsptest.ExpectError(t, err, -32602, "")
			if !strings.Contains(e.Message, want) {
				t.Errorf("%s: error %q does not hold %q", raw, e.Message, want)
			}
		}
		var list schema.SessionListResult
		ed.MustCall(schema.MethodSessionList, nil, &list)
		if len(list.Sessions) != 0 {
			t.Errorf("a refused start left sessions: %+v", list.Sessions)
		}
	})
}

// A server that never answers a refresh of its tool list holds no turn:
// the model's next step goes ahead with the tools it listed before.
func TestUnansweredToolListRefreshHoldsNoTurn(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		node, script := mcptest.Hostile(t, mcptest.NeverRefreshes)
		env.Set("mcp_servers", "h", map[string]any{
			"command":             node,
			"args":                []string{script},
			"trust":               true,
			"startup_timeout_sec": 3600, // the refresh stays in flight for the whole turn
		})
		ed := connect(t, env)
		env.OpenAI.Enqueue(
			toolReply("call_1", "mcp__h__poke", map[string]string{}),
			fakeopenai.Reply{Chunks: []string{"done"}},
		)
		sid := ed.StartSession("", nil).SessionID
		turn := ed.StartTurn(sid, "poke it").TurnID
		ed.ExpectTerminal(turn, schema.EvTurnCompleted)
		reqs, err := env.OpenAI.WaitRequests(2, env.Timeout)
		if err != nil {
			t.Fatal(err)
		}
		if !offers(reqs[1].Tools, "mcp__h__poke") {
			t.Errorf("the step after the poke does not offer the last listed tools")
		}
	})
}
