package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

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

	mu         sync.Mutex
	state      State
	reason     string // why it failed or stopped
	notes      []string
	tools      []Tool
	conn       *conn
	restarts   int  // restarts this turn
	crashed    bool // failed by exiting after it was ready: BeginTurn restarts it
	refreshing int  // tool-list refreshes under way
	changed    chan struct{}
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
		msg = strings.Join(s.notes, "; ")
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

// offerLocked makes list the server's tools: filtered and checked by
// catalog, and each under a name no other server of the manager holds.
func (s *server) offerLocked(list []*sdk.Tool) {
	offered, notes := catalog(s.name, s.cfg, list)
	kept, refused := s.m.routes.claim(s, offered)
	s.tools, s.notes = kept, append(notes, refused...)
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
	c, list, err := s.connect()
	if err != nil {
		if !s.m.isClosed() {
			s.setState(StateFailed, err.Error(), func() { s.tools, s.notes = nil, nil })
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
	s.setState(StateReady, "", func() { s.offerLocked(list) })
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
		s.setState(StateStarting, reason+"; restarting", func() { s.conn, s.tools = nil, nil })
		if !s.m.goOwned(s.connectAndWatch) {
			s.setState(StateStopped, "", nil)
		}
		return
	}
	s.setState(StateFailed, reason+"; it was restarted once this turn already, the next turn restarts it", func() {
		s.conn, s.tools, s.crashed = nil, nil, true
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
	s.conn, s.tools = nil, nil
	s.mu.Unlock()
	if c != nil {
		c.close(s.m.opts.StopGrace)
	}
}

func (s *server) settle(ctx context.Context) error {
	for {
		s.mu.Lock()
		busy := s.state == StateStarting || s.refreshing > 0
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

// toolsChanged is the tools/list_changed handler: it refreshes the list
// in an owned goroutine, since the handler runs on the connection's reader.
func (s *server) toolsChanged(cs *sdk.ClientSession) {
	s.mu.Lock()
	s.refreshing++
	s.broadcastLocked()
	s.mu.Unlock()
	started := s.m.goOwned(func() {
		ctx, cancel := context.WithTimeout(s.m.ctx, s.startupTimeout())
		list, err := listTools(ctx, cs)
		cancel()
		s.notifyMu.Lock()
		s.mu.Lock()
		s.refreshing--
		current := s.conn != nil && s.conn.cs == cs && s.state == StateReady
		if current && err == nil {
			s.offerLocked(list)
		} else if current {
			s.notes = append(s.notes, fmt.Sprintf("refreshing the tool list failed: %v", err))
		}
		s.broadcastLocked()
		errNote := s.errLocked()
		s.mu.Unlock()
		if current && s.m.opts.OnStatus != nil {
			s.m.opts.OnStatus(s.name, StateReady, errNote)
		}
		s.notifyMu.Unlock()
	})
	if !started {
		s.mu.Lock()
		s.refreshing--
		s.broadcastLocked()
		s.mu.Unlock()
	}
}

// listTools reads every page of the server's tools, up to one past the cap
// so catalog can report the overflow.
func listTools(ctx context.Context, cs *sdk.ClientSession) ([]*sdk.Tool, error) {
	if r := cs.InitializeResult(); r != nil && r.Capabilities != nil && r.Capabilities.Tools == nil {
		return nil, nil
	}
	var list []*sdk.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("list tools: %w", err)
		}
		list = append(list, t)
		if len(list) > MaxToolsPerServer {
			break
		}
	}
	return list, nil
}

func (s *server) refreshInFlight() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refreshing > 0
}
