package mcp

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"scv/runtime/config"
)

// waitServer waits until cond holds of server name, re-checking at each of
// its changes.
func waitServer(t testing.TB, m *Manager, name string, cond func(*server) bool) {
	t.Helper()
	deadline := time.After(testWait)
	for _, s := range m.servers {
		if s.name != name {
			continue
		}
		for {
			s.mu.Lock()
			changed := s.changed
			s.mu.Unlock()
			if cond(s) {
				return
			}
			select {
			case <-changed:
			case <-deadline:
				t.Fatalf("server %s: condition not reached", name)
			}
		}
	}
	t.Fatalf("no server %s", name)
}

func offers(m *Manager, name string) bool {
	for _, tool := range m.Tools() {
		if tool.Name == name {
			return true
		}
	}
	return false
}

// toolLists asks the raw server how many tool lists it was asked for.
func toolLists(t *testing.T, m *Manager) int {
	t.Helper()
	return rawCount(t, m, "lists")
}

// rawCount asks the raw server one of its counts.
func rawCount(t *testing.T, m *Manager, tool string) int {
	t.Helper()
	res, err := call(t, m, "mcp__raw__"+tool, `{}`)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(res.Text)
	if err != nil {
		t.Fatalf("%s: %q", tool, res.Text)
	}
	return n
}

// A flood of list_changed notifications costs at most one refresh in
// flight and one pending: the server holds every refresh until the client
// has handled the whole flood, so the first refresh, then the one the
// flood left pending, are the only ones it can see.
func TestListChangedFloodIsCoalesced(t *testing.T) {
	const flood = 2000
	m, _ := startManager(t, map[string]config.MCPServer{"raw": rawServer(t, rawScript{Flood: flood})}, Options{})
	settle(t, m)
	waitServer(t, m, "raw", func(*server) bool { return offers(m, "mcp__raw__after_flood") })
	if n := toolLists(t, m); n > 3 {
		t.Fatalf("%d notifications cost %d tool lists; want at most 3 (the first, one in flight, one pending)", flood, n)
	}
}

// A server that never answers a refresh holds no turn: Settle returns with
// the refresh still in flight, and the last good tools stay offered.
func TestUnansweredRefreshNeverHoldsATurn(t *testing.T) {
	cfg := rawServer(t, rawScript{HangRefresh: true})
	cfg.StartupTimeoutSec = 3600 // the refresh stays in flight for the whole test
	m, _ := startManager(t, map[string]config.MCPServer{"raw": cfg}, Options{})
	settle(t, m)
	if _, err := call(t, m, "mcp__raw__t_0_0", `{}`); err != nil { // sends list_changed
		t.Fatal(err)
	}
	waitServer(t, m, "raw", (*server).refreshInFlight)
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	if err := m.Settle(ctx); err != nil {
		t.Fatalf("Settle waited on a refresh: %v", err)
	}
	if !offers(m, "mcp__raw__t_0_0") {
		t.Fatalf("the last good tools are not offered: %+v", m.Tools())
	}
	if _, err := call(t, m, "mcp__raw__lists", `{}`); err != nil {
		t.Fatalf("a call waited on the refresh: %v", err)
	}
}

// A refresh with no answer within startup_timeout_sec is abandoned, and
// the server's status says so, naming the key; its tools stay offered.
func TestUnansweredRefreshIsAbandoned(t *testing.T) {
	m, log := startManager(t, map[string]config.MCPServer{"raw": rawServer(t, rawScript{HangRefresh: true})}, Options{})
	settle(t, m)
	// A short timeout only now, for the refresh: the handshake keeps the
	// default, which no loaded machine misses.
	s := m.servers[0]
	s.mu.Lock()
	s.cfg.StartupTimeoutSec = 0.2
	s.mu.Unlock()
	if _, err := call(t, m, "mcp__raw__t_0_0", `{}`); err != nil { // sends list_changed
		t.Fatal(err)
	}
	e := log.waitFor(t, "raw ready: ", 0)
	if !strings.Contains(e, "refresh") || !strings.Contains(e, "startup_timeout_sec") {
		t.Fatalf("status does not say the refresh was abandoned: %q", e)
	}
	if !offers(m, "mcp__raw__t_0_0") {
		t.Fatalf("the last good tools are not offered: %+v", m.Tools())
	}
}
