package mcp

import (
	"strings"
	"testing"

	"scv/runtime/config"
)

// A server that stops reading its stdin cannot hold a call past
// tool_timeout_sec: arguments larger than the pipe holds would block the
// write for ever, and a turn with it.
func TestCallToAServerThatStopsReadingTimesOut(t *testing.T) {
	cfg := rawServer(t, rawScript{Deaf: true})
	cfg.ToolTimeoutSec = 0.5
	m, _ := startManager(t, map[string]config.MCPServer{"raw": cfg}, Options{})
	settle(t, m)
	big := `{"pad":"` + strings.Repeat("x", 1<<20) + `"}`
	_, err := call(t, m, "mcp__raw__lists", big)
	if err == nil || !strings.Contains(err.Error(), "timed out after tool_timeout_sec (0.5s)") {
		t.Fatalf("call to a server that reads nothing: %v", err)
	}
}

// Requests a server sends scv are held until answered, and the SDK queues
// them without bound: a server that floods them and reads none of the
// answers would grow scv for ever. Past MaxUnansweredServerRequests the
// connection ends, and the status says why.
func TestServerRequestFloodEndsTheConnection(t *testing.T) {
	cfg := rawServer(t, rawScript{RequestFlood: 20000})
	m, log := startManager(t, map[string]config.MCPServer{"raw": cfg}, Options{})
	settle(t, m)
	e := log.waitFor(t, "raw starting: ", 1)
	if !strings.Contains(e, "MaxUnansweredServerRequests") {
		t.Fatalf("the flood ended the connection as %q", e)
	}
}
