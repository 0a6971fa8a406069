package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"scv/internal/mcptest"
)

func TestMCPListAndCheck(t *testing.T) {
	node, script := mcptest.Script(t, mcptest.Everything)
	home := t.TempDir()
	cfg := fmt.Sprintf(`
[mcp_servers.everything]
command = %q
args = [%q, "stdio"]
startup_timeout_sec = 30

[mcp_servers.off]
url = "http://127.0.0.1:1/mcp"
enabled = false
`, node, script)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := run(t, home, home, "", "mcp", "list")
	if code != 0 || !strings.Contains(out, "everything  stdio") || !strings.Contains(out, "off         http       no") {
		t.Fatalf("list: %d\n%s%s", code, out, stderr)
	}
	out, stderr, code = run(t, home, home, "", "mcp", "list", "--check")
	if code != 0 || !strings.Contains(out, "everything: ready,") || !strings.Contains(out, "echo") || strings.Contains(out, "off:") {
		t.Fatalf("check: %d\n%s%s", code, out, stderr)
	}

	broken := cfg + "\n[mcp_servers.broken]\ncommand = \"/nonexistent/mcp-server\"\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(broken), 0o600); err != nil {
		t.Fatal(err)
	}
	out, stderr, code = run(t, home, home, "", "mcp", "list", "--check")
	if code != 1 || !strings.Contains(out, "broken: failed: start /nonexistent/mcp-server") ||
		!strings.Contains(stderr, "not working: broken") || !strings.Contains(out, "everything: ready") {
		t.Fatalf("check with a broken server: %d\n%s%s", code, out, stderr)
	}
}

// A server started by --check gets the environment it would get in a
// session: the provider key is not in it, whatever its variable is called.
func TestMCPCheckStripsTheProviderKey(t *testing.T) {
	node, script := mcptest.Script(t, mcptest.Everything)
	home := t.TempDir()
	seen := filepath.Join(home, "env.txt")
	cfg := fmt.Sprintf(`
[provider]
api_key_env = "GROQ_KEY"

[mcp_servers.everything]
command = "sh"
args = ["-c", "env > %s; exec %s %s stdio"]
startup_timeout_sec = 30
`, seen, node, script)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	const key = "gsk-not-for-mcp-servers"
	out, stderr, code := runEnv(t, home, home, []string{"GROQ_KEY=" + key, "COPY_OF_IT=" + key, "VISIBLE=yes"}, "", "mcp", "list", "--check")
	if code != 0 {
		t.Fatalf("check: %d\n%s%s", code, out, stderr)
	}
	env, err := os.ReadFile(seen)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(env), key) || !strings.Contains(string(env), "VISIBLE=yes") {
		t.Fatalf("the server saw the key, or not the rest of the environment:\n%s", env)
	}
}

func TestMCPListRefusesAProjectServer(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".scv"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".scv", "config.toml"), []byte("[mcp_servers.evil]\ncommand = \"sh\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := run(t, home, ws, "", "mcp", "list", "--check")
	if code != 1 || !strings.Contains(stderr, "mcp_servers may not be set in a project file") {
		t.Fatalf("%d %s", code, stderr)
	}
}
