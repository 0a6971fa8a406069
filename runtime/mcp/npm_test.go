package mcp

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"scv/internal/mcptest"
	"scv/runtime/config"
)

// Tests against the real servers from npm (internal/mcptest).

func TestEverythingServerOverStdio(t *testing.T) {
	node, script := mcptest.Script(t, mcptest.Everything)
	cfg := config.NewMCPServer()
	cfg.Command, cfg.Args = node, []string{script, "stdio"}
	cfg.StartupTimeoutSec = 30
	env := append(os.Environ(), "SCV_TEST_PROVIDER_KEY=sk-must-not-leak")
	strip := func(env []string) []string {
		var kept []string
		for _, kv := range env {
			if !strings.HasPrefix(kv, "SCV_TEST_PROVIDER_KEY=") {
				kept = append(kept, kv)
			}
		}
		return kept
	}
	m, _ := startManager(t, map[string]config.MCPServer{"everything": cfg}, Options{Env: env, StripEnv: strip})
	settle(t, m)
	if st := statusOf(m, "everything"); st.State != StateReady || len(st.Tools) == 0 {
		t.Fatalf("status %+v", st)
	}
	res, err := call(t, m, "mcp__everything__echo", `{"message":"hello from scv"}`)
	if err != nil || !strings.Contains(res.Text, "hello from scv") {
		t.Fatalf("echo: %+v %v", res, err)
	}
	res, err = call(t, m, "mcp__everything__get-tiny-image", `{}`)
	if err != nil || !strings.Contains(res.Text, "[image: image/png") {
		t.Fatalf("image: %+v %v", res, err)
	}
	res, err = call(t, m, "mcp__everything__get-env", `{}`)
	if err != nil || !strings.Contains(res.Text, "PATH") || strings.Contains(res.Text, "sk-must-not-leak") {
		t.Fatalf("get-env: %v, shows the key or lacks PATH: %.300q", err, res.Text)
	}
	m.Close()
}

func TestFilesystemServer(t *testing.T) {
	node, script := mcptest.Script(t, mcptest.Filesystem)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("remember the milk\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := config.NewMCPServer()
	cfg.Command, cfg.Args = node, []string{script, dir}
	cfg.StartupTimeoutSec = 30
	cfg.DisabledTools = []string{"write_file"}
	m, _ := startManager(t, map[string]config.MCPServer{"fs": cfg}, Options{})
	settle(t, m)
	res, err := call(t, m, "mcp__fs__read_text_file", fmt.Sprintf(`{"path":%q}`, filepath.Join(dir, "notes.txt")))
	if err != nil || res.IsError || !strings.Contains(res.Text, "remember the milk") {
		t.Fatalf("read: %+v %v", res, err)
	}
	res, err = call(t, m, "mcp__fs__read_text_file", `{"path":"/etc/passwd"}`)
	if err != nil || !res.IsError {
		t.Fatalf("read outside its root is not a tool error: %+v %v", res, err)
	}
	for _, tool := range m.Tools() {
		if tool.Remote == "write_file" {
			t.Fatal("disabled_tools not applied")
		}
	}
}

func TestEverythingServerOverStreamableHTTP(t *testing.T) {
	node, script := mcptest.Script(t, mcptest.Everything)
	port := freePort(t)
	cmd := exec.Command(node, script, "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	// Wait for the server to say it listens.
	listening := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		found := false
		for sc.Scan() {
			if !found && strings.Contains(sc.Text(), "listening on port") {
				found = true
				listening <- true
			}
		}
		if !found {
			listening <- false
		}
	}()
	select {
	case ok := <-listening:
		if !ok {
			t.Fatal("the HTTP server exited before listening")
		}
	case <-time.After(testWait):
		t.Fatal("the HTTP server did not start")
	}

	cfg := config.NewMCPServer()
	cfg.URL = fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	cfg.BearerTokenEnvVar = "SCV_TEST_MCP_TOKEN"
	cfg.HTTPHeaders = map[string]string{"X-Scv-Test": "1"}
	m, _ := startManager(t, map[string]config.MCPServer{"remote": cfg}, Options{Env: append(os.Environ(), "SCV_TEST_MCP_TOKEN=t0ken")})
	settle(t, m)
	if st := statusOf(m, "remote"); st.State != StateReady || st.Transport != "http" {
		t.Fatalf("status %+v", st)
	}
	res, err := call(t, m, "mcp__remote__echo", `{"message":"over http"}`)
	if err != nil || !strings.Contains(res.Text, "over http") {
		t.Fatalf("echo: %+v %v", res, err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}

	// A named token variable that is not set fails the server, naming it.
	cfg.BearerTokenEnvVar = "SCV_TEST_UNSET_TOKEN"
	m2, _ := startManager(t, map[string]config.MCPServer{"remote": cfg}, Options{Env: []string{}})
	settle(t, m2)
	if st := statusOf(m2, "remote"); st.State != StateFailed || !strings.Contains(st.Error, "SCV_TEST_UNSET_TOKEN") {
		t.Fatalf("status %+v", st)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
