package mcp

import (
	"context"
	"os"
	"slices"
	"sync"
	"time"

	"scv/runtime/config"
	"scv/runtime/tools"
)

// DefaultStopGrace is how long a stdio server has to exit after its stdin
// closes before its process group is killed.
const DefaultStopGrace = 2 * time.Second

// Options configure the servers of one session.
type Options struct {
	// Servers are the configured servers by name; disabled ones are listed
	// as stopped and never started.
	Servers map[string]config.MCPServer
	// Dir is where a stdio server without cwd runs: the session's workspace.
	Dir string
	// LogDir receives each stdio server's stderr as mcp-NAME.log
	// (normally $SCV_HOME/logs); empty discards stderr.
	LogDir string
	// Env is the environment servers inherit before StripEnv; nil means
	// this process's. bearer_token_env_var is looked up here, unstripped.
	Env []string
	// StripEnv removes what a server must not see (the provider's key and
	// whatever the shell tool strips); nil keeps Env whole.
	StripEnv func([]string) []string
	// OnStatus is told every change of a server's state, in order per
	// server. err is why a server failed or, for a ready one, which tools
	// were dropped; nil otherwise. It must not block for long.
	OnStatus func(server string, state State, err error)
	// MaxOutputBytes caps the text one call returns (tools.max_output_bytes).
	MaxOutputBytes int
	// MaxLogBytes bounds each stderr log; 0 means DefaultMaxLogBytes.
	MaxLogBytes int64
	// StopGrace: 0 means DefaultStopGrace.
	StopGrace time.Duration
	// Catalogs bounds the bytes of the tools offered by the servers of
	// every Manager given it; nil means a budget of MaxProcessCatalogBytes
	// for this Manager alone.
	Catalogs *CatalogBudget

	// connected, for tests, runs once a connection is installed, before
	// its tools are offered.
	connected func(*server)
}

// Manager runs the MCP servers of one session. Its methods are safe for
// concurrent use.
type Manager struct {
	opts    Options
	ctx     context.Context // ends at Close; every connection derives from it
	cancel  context.CancelFunc
	servers []*server // sorted by name
	routes  *routes   // the tool names the servers offer, to route calls

	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

// Start begins connecting every enabled server, each in its own
// goroutine, and returns at once; states arrive through OnStatus.
func Start(opts Options) *Manager {
	if opts.MaxOutputBytes <= 0 {
		opts.MaxOutputBytes = tools.DefaultMaxOutputBytes
	}
	if opts.MaxLogBytes <= 0 {
		opts.MaxLogBytes = DefaultMaxLogBytes
	}
	if opts.StopGrace <= 0 {
		opts.StopGrace = DefaultStopGrace
	}
	if opts.Env == nil {
		opts.Env = os.Environ()
	}
	if opts.Catalogs == nil {
		opts.Catalogs = NewCatalogBudget(MaxProcessCatalogBytes)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &Manager{opts: opts, ctx: ctx, cancel: cancel, routes: newRoutes()}
	for name, cfg := range opts.Servers {
		m.servers = append(m.servers, newServer(m, name, cfg))
	}
	slices.SortFunc(m.servers, func(a, b *server) int {
		switch {
		case a.name < b.name:
			return -1
		case a.name > b.name:
			return 1
		}
		return 0
	})
	for _, s := range m.servers {
		if !s.cfg.Enabled {
			s.setState(StateStopped, "disabled in the configuration", nil)
			continue
		}
		s.launch()
	}
	return m
}

// goOwned runs f in a goroutine Close waits for; false once closed.
func (m *Manager) goOwned(f func()) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return false
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		f()
	}()
	return true
}

func (m *Manager) isClosed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed
}

// Servers reports every configured server, sorted by name.
func (m *Manager) Servers() []ServerStatus {
	out := make([]ServerStatus, 0, len(m.servers))
	for _, s := range m.servers {
		out = append(out, s.status())
	}
	return out
}

// Tools lists the tools of every ready server, by server name then in
// each server's order. A server that is down offers none.
func (m *Manager) Tools() []Tool {
	var out []Tool
	for _, s := range m.servers {
		out = append(out, s.currentTools()...)
	}
	return out
}

// BeginTurn marks the start of a turn: every server may be restarted once
// more, and one that exited since is restarted now.
func (m *Manager) BeginTurn() {
	for _, s := range m.servers {
		s.beginTurn()
	}
}

// Settle waits until no server is starting, or ctx ends. A session calls
// it before a model step so the step sees every server that can start;
// `scv mcp list --check` before reporting. A refresh of a tool list after
// list_changed is not waited for: a server that never answers one must not
// hold a turn, and its last good list stays offered meanwhile.
func (m *Manager) Settle(ctx context.Context) error {
	for _, s := range m.servers {
		if err := s.settle(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Close stops every server (stdin closed, then the process group killed
// after StopGrace), waits for every goroutine and reports each server as
// stopped. Calls after the first only wait.
func (m *Manager) Close() error {
	m.mu.Lock()
	first := !m.closed
	m.closed = true
	m.mu.Unlock()
	if !first {
		m.wg.Wait()
		return nil
	}
	m.cancel()
	var stops sync.WaitGroup
	for _, s := range m.servers {
		stops.Add(1)
		go func() {
			defer stops.Done()
			s.shutdown()
		}()
	}
	stops.Wait()
	m.wg.Wait()
	for _, s := range m.servers {
		if s.stateNow() != StateStopped {
			s.setState(StateStopped, "", nil)
		}
	}
	return nil
}
