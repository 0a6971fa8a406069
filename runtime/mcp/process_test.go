package mcp

import (
	"testing"

	"scv/runtime/config"
)

// A stdio server's grandchild that left its process group and session
// (setsid, as a daemonising server does) is killed with the server: its
// processes carry the server's marker, found by the same sweep as a shell
// call's.
func TestSetsidGrandchildDiesWithServer(t *testing.T) {
	cfg, token := helperServer(t, "setsid")
	m, _ := startManager(t, map[string]config.MCPServer{"setsid": cfg}, Options{})
	settle(t, m)
	if st := statusOf(m, "setsid"); st.State != StateReady {
		t.Fatalf("not ready: %+v", st)
	}
	if pids := processesWith(t, token); len(pids) < 2 {
		t.Fatalf("the server and its grandchild should run: %v", pids)
	}
	m.Close()
	assertNoneLeft(t, token)
}
