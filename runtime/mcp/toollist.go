package mcp

import (
	"context"
	"errors"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// listTools reads the server's tool list into c, page by page, up to
// MaxToolListPages pages and as far as c takes tools: a page's tools go
// into c before the next page is asked for, so what is held is bounded by
// c, not by what the server sends.
func listTools(ctx context.Context, cs *sdk.ClientSession, c *catalog) error {
	if r := cs.InitializeResult(); r != nil && r.Capabilities != nil && r.Capabilities.Tools == nil {
		return nil
	}
	params := &sdk.ListToolsParams{}
	for page := 1; ; page++ {
		res, err := cs.ListTools(ctx, params)
		if err != nil {
			return fmt.Errorf("list tools: %w", err)
		}
		for _, t := range res.Tools {
			c.add(t)
		}
		if c.full || res.NextCursor == "" {
			return nil
		}
		if page == MaxToolListPages {
			c.stopReading(fmt.Sprintf("the tool list goes on past %d pages (MaxToolListPages); the tools of the first %d are offered", page, page))
			return nil
		}
		params.Cursor = res.NextCursor
	}
}

// refreshState coalesces tools/list_changed notifications: at most one
// refresh of a server's tool list is in flight, and any number of
// notifications meanwhile leave one more pending.
type refreshState struct {
	inFlight, pending bool
}

// toolsChanged is the tools/list_changed handler. It runs on the
// connection's reader, so it only marks the change: a refresh in an owned
// goroutine reads the list, once for any number of notifications.
func (s *server) toolsChanged() {
	s.mu.Lock()
	if s.refresh.inFlight {
		s.refresh.pending = true
		s.mu.Unlock()
		return
	}
	s.refresh.inFlight = true
	s.broadcastLocked()
	s.mu.Unlock()
	if !s.m.goOwned(s.refreshTools) {
		s.mu.Lock()
		s.refresh = refreshState{}
		s.broadcastLocked()
		s.mu.Unlock()
	}
}

// refreshTools reads the current connection's tool list again, and once
// more while a change arrived meanwhile. Each read is bounded by
// startup_timeout_sec; one with no answer by then is abandoned, the
// status says so and the tools listed before stay offered. No turn waits
// for it.
func (s *server) refreshTools() {
	for {
		s.mu.Lock()
		c := s.conn
		s.refresh.pending = false
		if c == nil || s.state != StateReady {
			s.refresh = refreshState{}
			s.broadcastLocked()
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		ctx, cancel := context.WithTimeout(s.m.ctx, s.startupTimeout())
		cat := newCatalog(s.name, s.cfg)
		err := listTools(ctx, c.cs, cat)
		abandoned := errors.Is(ctx.Err(), context.DeadlineExceeded)
		cancel()
		if !s.refreshed(c, cat, err, abandoned) {
			return
		}
	}
}

// refreshed installs one refresh's outcome if c is still the server's
// connection, and reports whether to refresh once more.
func (s *server) refreshed(c *conn, cat *catalog, err error, abandoned bool) (again bool) {
	s.notifyMu.Lock()
	defer s.notifyMu.Unlock()
	s.mu.Lock()
	current := s.conn == c && s.state == StateReady
	switch {
	case !current:
	case err == nil:
		s.offerLocked(cat)
		s.refreshNote = ""
	case abandoned:
		s.refreshNote = fmt.Sprintf("refreshing the tool list got no answer within startup_timeout_sec (%gs) and was abandoned; the tools listed before stay offered",
			s.cfg.StartupTimeoutSec)
	default:
		s.refreshNote = fmt.Sprintf("refreshing the tool list failed (%v); the tools listed before stay offered", err)
	}
	again = current && s.refresh.pending
	if !again {
		s.refresh = refreshState{}
	}
	s.broadcastLocked()
	note := s.errLocked()
	s.mu.Unlock()
	if current && s.m.opts.OnStatus != nil {
		s.m.opts.OnStatus(s.name, StateReady, note)
	}
	return again
}

// refreshInFlight reports whether a refresh of the tool list is under way.
func (s *server) refreshInFlight() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refresh.inFlight
}
