package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"scv/runtime/config"
)

// testWait bounds every wait of a test on an expectation; reaching it is a
// failure, never the expected path.
const testWait = 60 * time.Second

// statusLog records OnStatus calls and lets a test wait for one.
type statusLog struct {
	mu      sync.Mutex
	events  []string
	changed chan struct{}
}

func newStatusLog() *statusLog { return &statusLog{changed: make(chan struct{})} }

func (l *statusLog) record(name string, state State, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := name + " " + string(state)
	if err != nil {
		e += ": " + err.Error()
	}
	l.events = append(l.events, e)
	close(l.changed)
	l.changed = make(chan struct{})
}

// waitFor waits until an event starting with prefix has been recorded
// after the first skip events, and returns it.
func (l *statusLog) waitFor(t *testing.T, prefix string, skip int) string {
	t.Helper()
	deadline := time.After(testWait)
	for {
		l.mu.Lock()
		for _, e := range l.events[min(skip, len(l.events)):] {
			if strings.HasPrefix(e, prefix) {
				l.mu.Unlock()
				return e
			}
		}
		changed, events := l.changed, append([]string(nil), l.events...)
		l.mu.Unlock()
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("no status %q; got %q", prefix, events)
		}
	}
}

func (l *statusLog) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.events)
}

func startManager(t *testing.T, servers map[string]config.MCPServer, opts Options) (*Manager, *statusLog) {
	t.Helper()
	log := newStatusLog()
	opts.Servers = servers
	opts.OnStatus = log.record
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	if opts.LogDir == "" {
		opts.LogDir = t.TempDir()
	}
	m := Start(opts)
	t.Cleanup(func() { m.Close() })
	return m, log
}

func settle(t *testing.T, m *Manager) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	if err := m.Settle(ctx); err != nil {
		t.Fatal(err)
	}
}

func statusOf(m *Manager, name string) ServerStatus {
	for _, s := range m.Servers() {
		if s.Name == name {
			return s
		}
	}
	return ServerStatus{}
}

func call(t *testing.T, m *Manager, name, args string) (Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	return m.Call(ctx, name, json.RawMessage(args))
}

func assertNoneLeft(t *testing.T, token string) {
	t.Helper()
	if pids := processesWith(t, token); len(pids) > 0 {
		t.Fatalf("processes left running after Close: %v", pids)
	}
}

func TestHelperServerToolsResultsAndClose(t *testing.T) {
	cfg, token := helperServer(t, "basic")
	logDir := t.TempDir()
	m, log := startManager(t, map[string]config.MCPServer{"basic": cfg}, Options{MaxOutputBytes: 1000, LogDir: logDir})
	settle(t, m)
	st := statusOf(m, "basic")
	if st.State != StateReady || st.Transport != "stdio" {
		t.Fatalf("status %+v", st)
	}
	if !strings.Contains(st.Error, `tool "bad_schema" dropped`) {
		t.Fatalf("the dropped tool is not named in the status: %q", st.Error)
	}
	names := map[string]bool{}
	for _, tool := range m.Tools() {
		names[tool.Name] = true
	}
	if !names["mcp__basic__echo"] || names["mcp__basic__bad_schema"] || len(names) != 9 {
		t.Fatalf("tools %v", names)
	}

	res, err := call(t, m, "mcp__basic__echo", `{"text":"héllo"}`)
	if err != nil || res.Text != "héllo" || res.IsError {
		t.Fatalf("echo: %+v %v", res, err)
	}
	if res, err := call(t, m, "mcp__basic__fail", ``); err != nil || !res.IsError || res.Text != "it went wrong" {
		t.Fatalf("fail: %+v %v", res, err)
	}
	res, err = call(t, m, "mcp__basic__big", `{}`)
	if err != nil || !res.Truncated || !strings.HasSuffix(res.Text, "[output truncated at 1000 bytes]") ||
		!strings.HasPrefix(res.Text, strings.Repeat("é", 500)+"\n") {
		t.Fatalf("big: %v %q…", err, res.Text[:40])
	}
	res, err = call(t, m, "mcp__basic__mixed", `{}`)
	if want := "see:\n[image: image/png, 5 bytes]\n[resource: file:///x (text/plain), 3 bytes]"; err != nil || res.Text != want {
		t.Fatalf("mixed: %q %v, want %q", res.Text, err, want)
	}
	if _, err := call(t, m, "mcp__basic__echo", `[1]`); err == nil || !strings.Contains(err.Error(), "JSON object") {
		t.Fatalf("non-object arguments: %v", err)
	}
	if _, err := call(t, m, "mcp__nope__echo", `{}`); !errors.Is(err, ErrUnknownTool) {
		t.Fatalf("unknown server: %v", err)
	}

	if got := processesWith(t, token); len(got) != 2 {
		t.Fatalf("want the server and its child running, got %v", got)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	assertNoneLeft(t, token)
	log.waitFor(t, "basic stopped", 0)
	if m.Tools() != nil {
		t.Fatal("tools offered after Close")
	}
	data, err := os.ReadFile(filepath.Join(logDir, "mcp-basic.log"))
	if err != nil || !strings.Contains(string(data), "helper basic started") {
		t.Fatalf("stderr log: %q %v", data, err)
	}
}

func TestAdapterSummaryAndRisk(t *testing.T) {
	cfg, _ := helperServer(t, "basic")
	cfg.Trust = true
	m, _ := startManager(t, map[string]config.MCPServer{"basic": cfg}, Options{})
	settle(t, m)
	var echo *adapter
	for _, tool := range m.AsTools() {
		if tool.Name() == "mcp__basic__echo" {
			echo = tool.(*adapter)
		}
		if tool.Risk() != "mcp" {
			t.Fatalf("%s has risk %q", tool.Name(), tool.Risk())
		}
	}
	if echo == nil || !echo.Trusted() || echo.Description() != "Echoes its text." {
		t.Fatalf("echo adapter %+v", echo)
	}
	want := "MCP server: basic\ntool: echo\narguments:\n{\n  \"text\": \"hi\"\n}"
	if got := echo.Summary(json.RawMessage(`{"text":"hi"}`)); got != want {
		t.Fatalf("summary %q, want %q", got, want)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	if r := echo.Run(ctx, json.RawMessage(`{"text":"hi"}`)); !r.Success || r.Output != "hi" {
		t.Fatalf("run %+v", r)
	}
}

func TestStartFaultsGiveFailedStates(t *testing.T) {
	sleeper := config.NewMCPServer()
	sleeper.Command, sleeper.Args = "sleep", []string{"1000"}
	sleeper.StartupTimeoutSec = 0.5
	garbage, token := helperServer(t, "garbage")
	garbage.StartupTimeoutSec = 5
	missing := config.NewMCPServer()
	missing.Command = "/nonexistent/scv-mcp-server"
	disabled := missing
	disabled.Enabled = false
	m, log := startManager(t, map[string]config.MCPServer{"sleeper": sleeper, "garbage": garbage, "missing": missing, "off": disabled}, Options{})
	settle(t, m)
	for name, want := range map[string]string{
		"sleeper": "no handshake within startup_timeout_sec (0.5s)",
		"garbage": "handshake",
		"missing": "start /nonexistent/scv-mcp-server: no such file or directory",
		"off":     "disabled",
	} {
		st := statusOf(m, name)
		wantState := StateFailed
		if name == "off" {
			wantState = StateStopped
		}
		if st.State != wantState || !strings.Contains(st.Error, want) {
			t.Errorf("%s: %s %q, want %s naming %q", name, st.State, st.Error, wantState, want)
		}
	}
	log.waitFor(t, "sleeper failed: no handshake", 0)
	if len(m.Tools()) != 0 {
		t.Fatal("failed servers offer tools")
	}
	m.Close()
	assertNoneLeft(t, token)
}

func TestTimedOutCallIsCancelledOnTheServer(t *testing.T) {
	cfg, token := helperServer(t, "basic")
	cfg.ToolTimeoutSec = 0.2
	m, _ := startManager(t, map[string]config.MCPServer{"basic": cfg}, Options{})
	settle(t, m)
	_, err := call(t, m, "mcp__basic__hang", `{}`)
	if err == nil || !strings.Contains(err.Error(), "timed out after tool_timeout_sec (0.2s)") {
		t.Fatalf("hang: %v", err)
	}
	// The server saw the cancellation: was_cancelled answers only then
	// (within the generous timeout set here).
	m.servers[0].cfg.ToolTimeoutSec = testWait.Seconds()
	if res, err := call(t, m, "mcp__basic__was_cancelled", `{}`); err != nil || res.Text != "yes" {
		t.Fatalf("was_cancelled: %+v %v", res, err)
	}
	// Cancelling the caller's context cancels the call too.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := m.Call(ctx, "mcp__basic__hang", nil)
		done <- err
	}()
	cancel()
	if err := <-done; err == nil || !strings.Contains(err.Error(), "cancelled") {
		t.Fatalf("cancelled call: %v", err)
	}
	m.Close()
	assertNoneLeft(t, token)
}

func TestCrashedServerRestartsOncePerTurn(t *testing.T) {
	cfg, token := helperServer(t, "basic")
	m, log := startManager(t, map[string]config.MCPServer{"basic": cfg}, Options{})
	settle(t, m)
	m.BeginTurn()
	if _, err := call(t, m, "mcp__basic__crash", `{}`); err == nil {
		t.Fatal("a crash mid-call gave no error")
	}
	log.waitFor(t, "basic starting: the server exited with code 3", 0)
	settle(t, m)
	if res, err := call(t, m, "mcp__basic__echo", `{"text":"back"}`); err != nil || res.Text != "back" {
		t.Fatalf("after restart: %+v %v", res, err)
	}
	n := log.count()
	if _, err := call(t, m, "mcp__basic__crash", `{}`); err == nil {
		t.Fatal("second crash gave no error")
	}
	log.waitFor(t, "basic failed: the server exited with code 3", n)
	settle(t, m)
	if len(m.Tools()) != 0 {
		t.Fatal("a crashed server's tools are still offered")
	}
	if _, err := call(t, m, "mcp__basic__echo", `{}`); err == nil || !strings.Contains(err.Error(), "is failed") {
		t.Fatalf("call to a down server: %v", err)
	}
	n = log.count()
	m.BeginTurn()
	log.waitFor(t, "basic ready", n)
	if len(m.Tools()) == 0 {
		t.Fatal("no tools after the next turn's restart")
	}
	m.Close()
	assertNoneLeft(t, token)
}

func TestFiveHundredTools(t *testing.T) {
	cfg, token := helperServer(t, "many")
	cfg.DisabledTools = []string{"tool_007"}
	m, _ := startManager(t, map[string]config.MCPServer{"many": cfg}, Options{})
	settle(t, m)
	tools := m.Tools()
	if len(tools) != 499 || tools[0].Name != "mcp__many__tool_000" {
		t.Fatalf("%d tools, first %+v", len(tools), tools[0])
	}
	if res, err := call(t, m, "mcp__many__tool_499", `{}`); err != nil || res.Text != "ok" {
		t.Fatalf("%+v %v", res, err)
	}
	if _, err := call(t, m, "mcp__many__tool_007", `{}`); !errors.Is(err, ErrUnknownTool) {
		t.Fatalf("disabled tool: %v", err)
	}
	m.Close()
	assertNoneLeft(t, token)
}

func TestToolListChangedRefreshes(t *testing.T) {
	cfg, _ := helperServer(t, "basic")
	cfg.EnabledTools = []string{"add_tool", "added"}
	m, log := startManager(t, map[string]config.MCPServer{"basic": cfg}, Options{})
	settle(t, m)
	if len(m.Tools()) != 1 {
		t.Fatalf("enabled_tools not applied: %+v", m.Tools())
	}
	n := log.count()
	if _, err := call(t, m, "mcp__basic__add_tool", `{}`); err != nil {
		t.Fatal(err)
	}
	log.waitFor(t, "basic ready", n)
	settle(t, m)
	if res, err := call(t, m, "mcp__basic__added", `{}`); err != nil || res.Text != "new" {
		t.Fatalf("added tool: %+v %v", res, err)
	}
}

func TestServerEnvironment(t *testing.T) {
	cfg, _ := helperServer(t, "basic")
	cfg.Env["OWN_VAR"] = "mine"
	strip := func(env []string) []string {
		var kept []string
		for _, kv := range env {
			if !strings.HasPrefix(kv, "PROVIDER_KEY=") {
				kept = append(kept, kv)
			}
		}
		return kept
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=/home/test", "PROVIDER_KEY=sk-secret", "OWN_VAR=theirs"}
	m, _ := startManager(t, map[string]config.MCPServer{"basic": cfg}, Options{Env: env, StripEnv: strip})
	settle(t, m)
	res, err := call(t, m, "mcp__basic__env", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(res.Text, "\n")
	for _, want := range []string{"HOME=/home/test", "OWN_VAR=mine"} {
		if !strings.Contains("\n"+res.Text+"\n", "\n"+want+"\n") {
			t.Errorf("env lacks %s: %q", want, lines)
		}
	}
	if strings.Contains(res.Text, "sk-secret") || strings.Contains(res.Text, "OWN_VAR=theirs") {
		t.Fatalf("env shows what it must not: %q", lines)
	}
}

func TestRotatingLogStaysBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs", "mcp-x.log")
	l, err := openLog(path, 100)
	if err != nil {
		t.Fatal(err)
	}
	for range 50 {
		if _, err := l.Write([]byte(strings.Repeat("x", 30) + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	l.Write([]byte(strings.Repeat("y", 500)))
	l.Close()
	for _, p := range []string{path, path + ".1"} {
		info, err := os.Stat(p)
		if err != nil || info.Size() > 100 {
			t.Fatalf("%s: %v %v", p, info, err)
		}
	}
	if data, _ := os.ReadFile(path); string(data) != strings.Repeat("y", 100) {
		t.Fatalf("oversized write kept %q", data)
	}
}
