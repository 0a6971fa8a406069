// Package mcptest finds the real MCP servers the tests run against: the
// npm packages pinned in this directory's package-lock.json, installed by
// scripts/test (npm ci) into node_modules.
package mcptest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// RequireEnv, when set (scripts/test sets it), turns a missing
// installation into a failure instead of a skip.
const RequireEnv = "SCV_REQUIRE_MCP"

// Servers of the pinned packages, by their bin script inside node_modules.
const (
	Everything = "@modelcontextprotocol/server-everything/dist/index.js"
	Filesystem = "@modelcontextprotocol/server-filesystem/dist/index.js"
)

// Dir is this package's directory, where package.json lives.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}

// Script returns node and the absolute path of a server's script, skipping
// the test (or failing it under SCV_REQUIRE_MCP) when either is missing.
func Script(t testing.TB, server string) (node, script string) {
	t.Helper()
	script = filepath.Join(Dir(), "node_modules", server)
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(script)
	}
	if err != nil {
		msg := "MCP test servers are not installed (run `npm ci` in " + Dir() + ", as scripts/test does): " + err.Error()
		if os.Getenv(RequireEnv) != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return node, script
}

// Hostile servers, written here to misbehave as a real one might.
const (
	// NeverRefreshes answers its first tools/list only; its tool poke
	// returns once the client has handled a list_changed it sent.
	NeverRefreshes = "never-refreshes.js"
)

// Hostile returns node and the absolute path of a hostile server's
// script, skipping the test (or failing it under SCV_REQUIRE_MCP) when
// node is missing.
func Hostile(t testing.TB, server string) (node, script string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv(RequireEnv) != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return node, filepath.Join(Dir(), "hostile", server)
}
