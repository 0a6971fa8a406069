package session

import (
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/google/uuid"

	"scv/runtime/ceiling"
	"scv/runtime/config"
	"scv/runtime/mcp"
	"scv/runtime/provider"
	"scv/runtime/store"
)

// Options configure a Manager.
type Options struct {
	Home   string              // $SCV_HOME
	Flags  config.Overrides    // command-line flags, applied last
	Getenv func(string) string // environment lookup; os.Getenv when nil
	Limits Limits              // wire limits every Snapshot carries; MaxSessions > 0 caps the open sessions
	Now    func() time.Time    // clock; time.Now when nil
	// Log receives what the runtime recovers from (a panic in a turn, with
	// its stack); nil logs to stderr, which is the daemon's log file.
	Log *slog.Logger
	// Store keeps every session on disk ($SCV_HOME/sessions); nil keeps
	// them in memory only.
	Store *store.Store
	// OnClosed, when set, is called with a session's id once its close
	// has finished and it holds none of its turns any more: the daemon
	// gives the memory back to the system then. It is called with the
	// session's lock held and must not block.
	OnClosed func(sessionID string)
}

// Manager owns every session of a process.
type Manager struct {
	opts     Options
	mu       sync.Mutex
	sessions map[string]*Session
	order    []string
	starting int // sessions being built: they count against MaxSessions
	// loading serialises loads from the store, so two attaches of one
	// stored session load it once.
	loading  sync.Mutex
	closing  closing
	mcpStops mcpStops
	// mcpCatalogs bounds the MCP tools all sessions' servers offer together.
	mcpCatalogs *mcp.CatalogBudget
	// models caches each provider endpoint's model list for every session.
	models *provider.ModelCache
	// rules guards the user's allow rules for every session (see
	// config.RuleWatch).
	rules *config.RuleWatch
}

// NewManager returns an empty Manager.
func NewManager(opts Options) *Manager {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	return &Manager{opts: opts, sessions: map[string]*Session{}, models: provider.NewModelCache(opts.Now),
		rules: config.NewRuleWatch(opts.Home), mcpCatalogs: mcp.NewCatalogBudget(mcp.MaxProcessCatalogBytes)}
}

// StartParams are the parameters of scv/session/start.
type StartParams struct {
	Cwd            string
	Model          string
	Provider       string
	BaseURL        string
	ApprovalPolicy string
	NoTools        bool
	// MCPServers are servers for this session only, beside the user's
	// configured ones (a same-named one replaces the configured one).
	MCPServers map[string]config.MCPServer
	// Flags are the command-line flags of the `scv lsp` this request came
	// through (a forwarding bridge's): they override the params above, and
	// the serving process's own Options.Flags override them. Both also fix
	// the session's approval ceiling (see boundCeiling).
	Flags config.Overrides
}

// Start builds a session in an absolute workspace directory and attaches
// sub; every event sub receives comes after the returned Snapshot.
func (m *Manager) Start(p StartParams, sub Subscriber) (*Session, Snapshot, error) {
	cwd, err := checkCwd(p.Cwd)
	if err != nil {
		return nil, Snapshot{}, err
	}
	place, err := m.reserve()
	if err != nil {
		return nil, Snapshot{}, err
	}
	defer place.release()
	var noTools *bool
	if p.NoTools {
		noTools = &p.NoTools
	}
	cfg, src, err := config.Load(config.LoadOptions{
		Home: m.opts.Home,
		Cwd:  cwd,
		Overrides: config.Overrides{
			Provider: p.Provider, Model: p.Model, BaseURL: p.BaseURL,
			ApprovalPolicy: p.ApprovalPolicy, NoTools: noTools,
		},
		Flags: p.Flags.With(m.opts.Flags),
	})
	if err != nil {
		return nil, Snapshot{}, errorf(CodeInvalidParams, "%v", err)
	}
	ceil, err := m.boundCeiling(ceiling.Ceiling{}, cwd, p.Flags, startedBy)
	if err != nil {
		return nil, Snapshot{}, errorf(CodeInvalidParams, "%v", err)
	}
	if err := holdPolicy(&cfg, ceil, src.Origin("agent.approval_policy")); err != nil {
		return nil, Snapshot{}, err
	}
	if err := mergeMCPServers(&cfg, p.MCPServers); err != nil {
		return nil, Snapshot{}, err
	}
	s, err := m.build(uuid.NewString(), m.opts.Now(), cwd, cfg, ceil)
	if err != nil {
		return nil, Snapshot{}, err
	}
	if err := m.create(s); err != nil {
		return nil, Snapshot{}, err
	}
	place.fill(s)
	a, err := s.Attach(sub, nil)
	if err != nil {
		return nil, Snapshot{}, err
	}
	m.startMCP(s) // after Attach, so sub sees every server's first state
	return s, a.Snapshot, nil
}

// Get returns an open session.
func (m *Manager) Get(id string) (*Session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[id]
	if !ok {
		return nil, errorf(CodeSessionNotFound, "session %q was not found", id)
	}
	return s, nil
}

// List summarises the open sessions, oldest first.
func (m *Manager) List() []Summary {
	m.mu.Lock()
	sessions := make([]*Session, 0, len(m.order))
	for _, id := range m.order {
		sessions = append(sessions, m.sessions[id])
	}
	m.mu.Unlock()
	out := make([]Summary, 0, len(sessions))
	for _, s := range sessions {
		out = append(out, s.Summary())
	}
	return out
}

// Close ends a session: its turn is cancelled, its queue dropped.
func (m *Manager) Close(id string) error {
	m.mu.Lock()
	s, ok := m.sessions[id]
	if ok {
		delete(m.sessions, id)
		m.order = removeID(m.order, id)
	}
	m.mu.Unlock()
	if !ok {
		return errorf(CodeSessionNotFound, "session %q was not found", id)
	}
	m.closing.add(s)
	s.close()
	m.stopMCP(s)
	return nil
}

func removeID(ids []string, id string) []string {
	for i, v := range ids {
		if v == id {
			return append(ids[:i:i], ids[i+1:]...)
		}
	}
	return ids
}

// DetachAll removes sub from every session (a connection went away).
func (m *Manager) DetachAll(sub Subscriber) {
	for _, s := range m.all() {
		s.Detach(sub)
	}
}

func (m *Manager) all() []*Session {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*Session, 0, len(m.sessions))
	for _, s := range m.sessions {
		out = append(out, s)
	}
	return out
}

// Running counts sessions with a turn running.
func (m *Manager) Running() int {
	n := 0
	for _, s := range m.all() {
		if s.Running() {
			n++
		}
	}
	return n
}

// Count returns the number of open sessions.
func (m *Manager) Count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.sessions)
}
