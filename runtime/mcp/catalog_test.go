package mcp

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"scv/runtime/config"
)

// catalogBytes is what the offered tools hold of a server's catalog.
func catalogBytes(m *Manager) int {
	n := 0
	for _, t := range m.Tools() {
		n += len(t.Name) + len(t.Remote) + len(t.Description) + len(t.Schema)
	}
	return n
}

func TestOversizedSchemaIsLeftOutAndNamed(t *testing.T) {
	cfg := rawServer(t, rawScript{BigSchemaBytes: MaxToolSchemaBytes + 1})
	m, _ := startManager(t, map[string]config.MCPServer{"raw": cfg}, Options{})
	settle(t, m)
	if offers(m, "mcp__raw__big") || !offers(m, "mcp__raw__t_0_0") {
		t.Fatalf("want big left out and t_0_0 offered: %+v", statusOf(m, "raw").Tools)
	}
	if st := statusOf(m, "raw"); !strings.Contains(st.Error, `"big"`) || !strings.Contains(st.Error, "MaxToolSchemaBytes") {
		t.Fatalf("status does not name the tool and the limit: %q", st.Error)
	}
}

// Forty pages of schemas just under the per-tool bound are held only up
// to the server's catalog bound; the first tool left out is named.
func TestServerCatalogIsBounded(t *testing.T) {
	cfg := rawServer(t, rawScript{Pages: 40, SchemaBytes: MaxToolSchemaBytes - 1024})
	m, _ := startManager(t, map[string]config.MCPServer{"raw": cfg}, Options{})
	settle(t, m)
	if n := catalogBytes(m); n > MaxServerCatalogBytes || n == 0 {
		t.Fatalf("catalog holds %d bytes; the bound is %d", n, MaxServerCatalogBytes)
	}
	first := 0
	for offers(m, fmt.Sprintf("mcp__raw__t_%d_0", first)) {
		first++
	}
	if st := statusOf(m, "raw"); !strings.Contains(st.Error, fmt.Sprintf(`"t_%d_0"`, first)) || !strings.Contains(st.Error, "MaxServerCatalogBytes") {
		t.Fatalf("status does not name t_%d_0, the first tool left out: %q", first, st.Error)
	}
}

// Managers given one CatalogBudget share it: the second server offers
// only what the first left of it, names the rest, and gets the budget
// back when the first closes.
func TestCatalogBudgetIsSharedByManagers(t *testing.T) {
	script := rawScript{ToolsPerPage: 2, SchemaBytes: 10000}
	budget := NewCatalogBudget(30000)
	first, _ := startManager(t, map[string]config.MCPServer{"raw": rawServer(t, script)}, Options{Catalogs: budget})
	settle(t, first)
	held := catalogBytes(first)
	if held < 20000 || budget.Used() != held {
		t.Fatalf("first manager holds %d bytes, the budget counts %d", held, budget.Used())
	}
	second, _ := startManager(t, map[string]config.MCPServer{"raw": rawServer(t, script)}, Options{Catalogs: budget})
	settle(t, second)
	if !offers(second, "mcp__raw__lists") || offers(second, "mcp__raw__t_0_0") {
		t.Fatalf("second manager offers %+v", second.Tools())
	}
	if st := statusOf(second, "raw"); !strings.Contains(st.Error, `"t_0_0"`) || !strings.Contains(st.Error, "MaxProcessCatalogBytes") {
		t.Fatalf("status does not name what the budget left out: %q", st.Error)
	}
	if used := budget.Used(); used != held+catalogBytes(second) || used > 30000 {
		t.Fatalf("budget counts %d, the managers hold %d", used, held+catalogBytes(second))
	}
	first.Close()
	if used := budget.Used(); used != catalogBytes(second) {
		t.Fatalf("after the first closed the budget counts %d, the second holds %d", used, catalogBytes(second))
	}
}

func TestToolListPagesAreBounded(t *testing.T) {
	cfg := rawServer(t, rawScript{Pages: MaxToolListPages + 5})
	m, _ := startManager(t, map[string]config.MCPServer{"raw": cfg}, Options{})
	settle(t, m)
	if offers(m, "mcp__raw__t_100_0") || !offers(m, "mcp__raw__t_99_0") {
		t.Fatalf("want the tools of the first %d pages: %d offered", MaxToolListPages, len(m.Tools()))
	}
	if st := statusOf(m, "raw"); st.State != StateReady || !strings.Contains(st.Error, "MaxToolListPages") {
		t.Fatalf("status does not name the page bound: %+v", st)
	}
}

// A message over MaxServerMessageBytes ends the connection instead of
// being buffered whole; the server fails with the reason.
func TestOversizedMessageFailsTheServer(t *testing.T) {
	cfg := rawServer(t, rawScript{BigSchemaBytes: MaxServerMessageBytes + 1})
	m, _ := startManager(t, map[string]config.MCPServer{"raw": cfg}, Options{})
	settle(t, m)
	if st := statusOf(m, "raw"); st.State != StateFailed || !strings.Contains(st.Error, "MaxServerMessageBytes") {
		t.Fatalf("a %d-byte message was taken: %+v", MaxServerMessageBytes+1, st)
	}
}

func TestToolsPastMaxToolsPerServerAreLeftOut(t *testing.T) {
	cfg := rawServer(t, rawScript{Pages: 2, ToolsPerPage: 600})
	m, _ := startManager(t, map[string]config.MCPServer{"raw": cfg}, Options{})
	settle(t, m)
	if n := len(m.Tools()); n != MaxToolsPerServer {
		t.Fatalf("%d tools offered, want %d", n, MaxToolsPerServer)
	}
	if st := statusOf(m, "raw"); !strings.Contains(st.Error, "MaxToolsPerServer") {
		t.Fatalf("status does not name the bound: %q", st.Error)
	}
}

// Pages of tools that are all left out (each schema over the per-tool
// bound) are read only up to MaxToolListBytes: what a listing reads is
// bounded, not only what it keeps.
func TestToolListReadIsBounded(t *testing.T) {
	const schemaBytes = 2 * MaxToolSchemaBytes
	cfg := rawServer(t, rawScript{Pages: 100, SchemaBytes: schemaBytes})
	m, _ := startManager(t, map[string]config.MCPServer{"raw": cfg}, Options{})
	settle(t, m)
	if pages, most := rawCount(t, m, "pages"), MaxToolListBytes/schemaBytes+1; pages > most {
		t.Fatalf("%d pages read; at most %d fit in MaxToolListBytes", pages, most)
	}
	if st := statusOf(m, "raw"); !strings.Contains(st.Error, "MaxToolListBytes") {
		t.Fatalf("status does not name the bound: %q", st.Error)
	}
}

// A session closed while a server's connection is being set up gives
// back every byte of the process's catalog budget: the tools are not
// offered after Close took the connection away.
func TestCloseDuringConnectGivesTheBudgetBack(t *testing.T) {
	budget := NewCatalogBudget(MaxProcessCatalogBytes)
	var m *Manager
	closed := make(chan struct{})
	connected := func(s *server) {
		go func() { m.Close(); close(closed) }()
		// Wait until Close has taken the connection away.
		deadline := time.Now().Add(testWait)
		for {
			s.mu.Lock()
			gone := s.conn == nil
			s.mu.Unlock()
			if gone {
				return
			}
			if time.Now().After(deadline) {
				t.Error("Close never took the connection")
				return
			}
			runtime.Gosched()
		}
	}
	started := make(chan struct{})
	opts := Options{Catalogs: budget, connected: func(s *server) { <-started; connected(s) }}
	m, _ = startManager(t, map[string]config.MCPServer{"raw": rawServer(t, rawScript{})}, opts)
	close(started)
	<-closed
	if used := budget.Used(); used != 0 {
		t.Fatalf("after Close the session still holds %d bytes of the process's catalog budget", used)
	}
}
