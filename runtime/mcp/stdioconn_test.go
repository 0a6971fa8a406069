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
