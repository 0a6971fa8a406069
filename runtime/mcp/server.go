package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"scv/runtime/config"
)

// server is one configured server and its current connection, if any.
type server struct {
	m    *Manager
	name string
	cfg  config.MCPServer

	// notifyMu orders OnStatus calls so they arrive as the states changed;
	// it is taken before mu and never inside it.
	notifyMu sync.Mutex

	mu          sync.Mutex
	state       State
	reason      string   // why it failed or stopped
	notes       []string // what the catalog left out
	refreshNote string   // why the last refresh of the tool list failed
	tools       []Tool
	held        int // bytes of tools taken from the process's CatalogBudget
	conn        *conn
	restarts    int  // restarts this turn
	crashed     bool // failed by exiting after it was ready: BeginTurn restarts it
	refresh     refreshState
	changed     chan struct{}
}

func newServer(m *Manager, name string, cfg config.MCPServer) *server {
	return &server{m: m, name: name, cfg: cfg, state: StateStarting, changed: make(chan struct{})}
}

func (s *server) startupTimeout() time.Duration {
	return time.Duration(s.cfg.StartupTimeoutSec * float64(time.Second))
}

func (s *server) toolTimeout() time.Duration {
	return time.Duration(s.cfg.ToolTimeoutSec * float64(time.Second))
}

// setState records a state and tells OnStatus, outside mu.
func (s *server) setState(state State, reason string, update func()) {
	s.notifyMu.Lock()
	defer s.notifyMu.Unlock()
	s.mu.Lock()
	s.state, s.reason = state, reason
	if update != nil {
		update()
	}
	s.broadcastLocked()
	err := s.errLocked()
	s.mu.Unlock()
	if s.m.opts.OnStatus != nil {
		s.m.opts.OnStatus(s.name, state, err)
	}
}

func (s *server) broadcastLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// errLocked is the status's error: the failure, or the dropped tools.
func (s *server) errLocked() error {
	msg := s.reason
	if s.state == StateReady {
		parts := s.notes
		if s.refreshNote != "" {
			parts = append(slices.Clip(parts), s.refreshNote)
		}
		msg = strings.Join(parts, "; ")
	}
	if msg == "" {
		return nil
	}
	return errors.New(msg)
}

func (s *server) stateNow() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

func (s *server) status() ServerStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := ServerStatus{Name: s.name, Transport: s.cfg.Transport(), State: s.state}
	if err := s.errLocked(); err != nil {
		st.Error = err.Error()
	}
	for _, t := range s.tools {
		st.Tools = append(st.Tools, ToolInfo{Name: t.Name, Tool: t.Remote, Description: t.Description})
	}
	return st
}

// offerLocked makes c's tools the server's, those that fit: each under a
// name no other server of the manager holds, and within the process's
// CatalogBudget.
func (s *server) offerLocked(c *catalog) {
	s.withdrawLocked()
	kept, refused := s.m.routes.claim(s, c.tools)
	notes := c.notes
	budget := s.m.opts.Catalogs
	fit := make([]Tool, 0, len(kept))
	for _, t := range kept {
		if n := toolBytes(t); budget.take(n) {
			fit = append(fit, t)
			s.held += n
			continue
		}
		notes.add(fmt.Sprintf("tool %s left out: the tools of every MCP server of this process reached MaxProcessCatalogBytes (%d bytes)",
			quoteName(t.Remote), budget.b.Limit()))
	}
	if len(fit) < len(kept) {
		s.m.routes.claim(s, fit)
	}
	for _, r := range refused {
		notes.add(r)
	}
	s.tools, s.notes = fit, notes.all()
}

// withdrawLocked takes the server's tools off offer and gives their bytes
// back to the budget. Their names stay routed to the server, so a call is
// told it is down.
func (s *server) withdrawLocked() {
	s.m.opts.Catalogs.give(s.held)
	s.tools, s.held = nil, 0
}

func (s *server) currentTools() []Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != StateReady {
		return nil
	}
	return append([]Tool(nil), s.tools...)
}

// launch starts a connection attempt in an owned goroutine.
func (s *server) launch() {
	s.setState(StateStarting, "", nil)
	if !s.m.goOwned(s.connectAndWatch) {
		s.setState(StateStopped, "", nil)
	}
}

// connectAndWatch connects, offers the tools, then waits for the
// connection to end and decides about a restart.
func (s *server) connectAndWatch() {
	c, cat, err := s.connect()
	if err != nil {
		if !s.m.isClosed() {
			s.setState(StateFailed, err.Error(), func() { s.withdrawLocked(); s.notes = nil })
		}
		return
	}
	// Close may have begun: then this connection is not installed (so
	// shutdown cannot see it) and is closed here.
	s.mu.Lock()
	closed := s.m.isClosed()
	if !closed {
		s.conn = c
	}
	s.mu.Unlock()
	if closed {
		c.close(s.m.opts.StopGrace)
		return
	}
	if s.m.opts.connected != nil {
		s.m.opts.connected(s)
	}
	// Close may take the connection away before it is ready: its tools
	// are offered only while it is still the server's, under the same
	// lock as shutdown's withdraw, so no byte of the budget outlives Close.
	s.setState(StateReady, "", func() {
		if s.conn == c {
			s.offerLocked(cat)
		}
		s.refreshNote = ""
	})
	waitErr := c.cs.Wait()
	s.handleExit(c, waitErr)
}

// handleExit withdraws the tools of a connection that ended and restarts
// it when this turn still allows.
func (s *server) handleExit(c *conn, waitErr error) {
	if s.m.isClosed() {
		return
	}
	c.close(0)
	reason := c.endReason(waitErr)
	s.mu.Lock()
	if s.conn != c { // replaced or shut down meanwhile
		s.mu.Unlock()
		return
	}
	restart := s.restarts == 0
	if restart {
		s.restarts++
	}
	s.mu.Unlock()
	if restart {
		s.setState(StateStarting, reason+"; restarting", func() { s.conn = nil; s.withdrawLocked() })
		if !s.m.goOwned(s.connectAndWatch) {
			s.setState(StateStopped, "", nil)
		}
		return
	}
	s.setState(StateFailed, reason+"; it was restarted once this turn already, the next turn restarts it", func() {
		s.conn, s.crashed = nil, true
		s.withdrawLocked()
	})
}

func (s *server) beginTurn() {
	s.mu.Lock()
	s.restarts = 0
	restart := s.crashed && s.state == StateFailed
	if restart {
		s.crashed = false
		s.restarts = 1
	}
	s.mu.Unlock()
	if restart {
		s.launch()
	}
}

// shutdown closes the current connection at Close.
func (s *server) shutdown() {
	s.mu.Lock()
	c := s.conn
	s.conn = nil
	s.withdrawLocked()
	s.mu.Unlock()
	if c != nil {
		c.close(s.m.opts.StopGrace)
	}
}

// settle waits while the server is starting. A refresh of its tool list
// is not waited for: the last good list stays offered meanwhile.
func (s *server) settle(ctx context.Context) error {
	for {
		s.mu.Lock()
		busy := s.state == StateStarting
		changed := s.changed
		s.mu.Unlock()
		if !busy {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
