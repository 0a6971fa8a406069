package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"scv/runtime/config"
)

// namedServer starts a server offering one tool, whose calls answer label.
func namedServer(t *testing.T, tool, label string) config.MCPServer {
	t.Helper()
	cfg, _ := helperServer(t, "named")
	cfg.Env[namedToolEnv] = tool
	cfg.Env[namedLabelEnv] = label
	return cfg
}

// runAdapters calls every offered tool through its adapter and returns
// name → the label of the server the call reached.
func runAdapters(t *testing.T, m *Manager) map[string][]string {
	t.Helper()
	got := map[string][]string{}
	for _, tool := range m.AsTools() {
		res := tool.Run(context.Background(), json.RawMessage(`{}`))
		got[tool.Name()] = append(got[tool.Name()], res.Output)
	}
	return got
}

// Servers docs_ and docs would both offer mcp__docs___search. Each exposed
// name routes to exactly one (server, tool), and the adapter the approval
// gate asks about trust is the one the call reaches.
func TestCollidingToolNamesAreRefusedNotMisrouted(t *testing.T) {
	trusted := namedServer(t, "search", "docs_")
	trusted.Trust = true
	m, log := startManager(t, map[string]config.MCPServer{
		"docs_": trusted,
		"docs":  namedServer(t, "_search", "docs"),
	}, Options{})
	settle(t, m)
	offered := m.AsTools()
	if len(offered) != 1 {
		t.Fatalf("want one of the two colliding tools offered, got %d", len(offered))
	}
	a := offered[0].(*adapter)
	if res := a.Run(context.Background(), json.RawMessage(`{}`)); res.Output != a.Server() {
		t.Fatalf("%s: the gate saw server %s (trusted %v) but the call reached %q", a.Name(), a.Server(), a.Trusted(), res.Output)
	}
	// The one refused says so, naming the tool and the server that has it.
	refused := "docs"
	if a.Server() == "docs" {
		refused = "docs_"
	}
	if st := statusOf(m, refused); !strings.Contains(st.Error, "mcp__docs___search") || !strings.Contains(st.Error, "taken") {
		t.Fatalf("%s's status does not name the refused tool: %+v (%q)", refused, st, log.events)
	}
}

// A server whose name ends in '_' (which the configuration refuses, but
// the manager must not depend on) and servers whose long names are cut
// into the same prefix still have every offered tool reachable.
func TestEveryOfferedToolIsReachable(t *testing.T) {
	long := strings.Repeat("a", 60)
	m, _ := startManager(t, map[string]config.MCPServer{
		"x_":       namedServer(t, "t", "x_"),
		long + "1": namedServer(t, "t", long+"1"),
		long + "2": namedServer(t, "t", long+"2"),
	}, Options{})
	settle(t, m)
	got := runAdapters(t, m)
	if len(got) != 3 {
		t.Fatalf("want 3 distinct tool names, got %v", got)
	}
	for _, tool := range m.AsTools() {
		a := tool.(*adapter)
		if out := got[a.Name()]; len(out) != 1 || out[0] != a.Server() {
			t.Fatalf("%s (server %s) reached %q", a.Name(), a.Server(), out)
		}
		if len(a.Name()) > MaxToolNameBytes {
			t.Fatalf("%s is longer than %d bytes", a.Name(), MaxToolNameBytes)
		}
	}
}
