package mcp

import (
	"strings"
	"testing"

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
// to the server's catalog bound; the tools past it are named.
func TestServerCatalogIsBounded(t *testing.T) {
	cfg := rawServer(t, rawScript{Pages: 40, SchemaBytes: MaxToolSchemaBytes - 1024})
	m, _ := startManager(t, map[string]config.MCPServer{"raw": cfg}, Options{})
	settle(t, m)
	if n := catalogBytes(m); n > MaxServerCatalogBytes || n == 0 {
		t.Fatalf("catalog holds %d bytes; the bound is %d", n, MaxServerCatalogBytes)
	}
	if st := statusOf(m, "raw"); !strings.Contains(st.Error, `"t_39_0"`) || !strings.Contains(st.Error, "MaxServerCatalogBytes") {
		t.Fatalf("status does not name what was left out: %q", st.Error)
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
