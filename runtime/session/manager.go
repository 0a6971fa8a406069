package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/google/uuid"

	"scv/runtime/ceiling"
	"scv/runtime/config"
	"scv/runtime/mcp"
	"scv/runtime/prompt"
	"scv/runtime/provider"
	"scv/runtime/store"
	"scv/runtime/tools"
)

// ShutdownGrace is how long Shutdown waits for cancelled turns to end
// before abandoning them.
const ShutdownGrace = 3 * time.Second

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

func checkCwd(cwd string) (string, error) {
	if cwd == "" || !filepath.IsAbs(cwd) {
		return "", errorf(CodeInvalidCwd, "cwd must be an absolute directory path, got %q", cwd)
	}
	info, err := os.Stat(cwd)
	if err != nil {
		return "", errorf(CodeInvalidCwd, "cwd %s: %v", cwd, errors.Unwrap(err))
	}
	if !info.IsDir() {
		return "", errorf(CodeInvalidCwd, "cwd %s is not a directory", cwd)
	}
	resolved, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		return "", errorf(CodeInvalidCwd, "cwd %s: %v", cwd, err)
	}
	return resolved, nil
}

func (m *Manager) build(id string, createdAt time.Time, cwd string, cfg config.Config, ceil ceiling.Ceiling) (*Session, error) {
	prov, err := m.newProvider(cfg)
	if err != nil {
		return nil, err
	}
	ws, err := tools.NewWorkspace(cwd)
	if err != nil {
		return nil, errorf(CodeInvalidCwd, "%v", err)
	}
	sys, err := prompt.Build(prompt.Options{
		Workspace:     ws.Root(),
		Configured:    cfg.Agent.SystemPrompt,
		MaxReadBytes:  cfg.Tools.MaxReadBytes,
		SkillsEnabled: cfg.Skills.Enabled && cfg.Tools.Enabled, // read_skill is a tool
		PlanTool:      cfg.Tools.Enabled,
		Home:          m.opts.Home,
		MaxBytes:      systemPromptBytes(cfg.Context.MaxTokens),
	})
	if err != nil {
		if errors.Is(err, prompt.ErrOverBudget) {
			return nil, errorf(CodeInvalidParams, "%v: the system prompt may take 1/%d of context.max_tokens (%d)", err, systemPromptShare, cfg.Context.MaxTokens)
		}
		return nil, fmt.Errorf("build system prompt: %w", err)
	}
	// Without tools the registry is empty rather than nil: a model may
	// still call a tool, and that call is answered "unknown tool".
	registry := tools.NewRegistry()
	if cfg.Tools.Enabled {
		all := tools.Builtin(ws, tools.Limits{
			MaxReadBytes:   cfg.Tools.MaxReadBytes,
			MaxOutputBytes: cfg.Tools.MaxOutputBytes,
			ShellTimeout:   time.Duration(cfg.Tools.ShellTimeoutSeconds) * time.Second,
			MaxGrepMatches: cfg.Tools.MaxGrepMatches,
		}, m.shellEnvFor(cfg))
		if len(sys.Skills) > 0 {
			all = append(all, prompt.NewReadSkillTool(sys.Skills, cfg.Tools.MaxReadBytes))
		}
		all = append(all, planTool{})
		registry = tools.NewRegistry(all...)
	}
	limits := m.opts.Limits.WithResponse(ResponseLimits(cfg))
	limits.MaxServerFrameBytes = cfg.Protocol.MaxServerFrameBytes
	ctx, cancel := context.WithCancel(context.Background())
	s := &Session{
		id:               id,
		cwd:              ws.Root(),
		home:             m.opts.Home,
		rules:            m.rules,
		model:            cfg.Provider.Model,
		configuredModels: cfg.Provider.Models,
		modelCache:       m.models,
		createdAt:        createdAt,
		now:              m.opts.Now,
		cfg:              cfg,
		ceiling:          ceil,
		limits:           limits,
		provider:         prov,
		registry:         registry,
		workspace:        ws,
		system:           sys.Text,
		skills:           sys.Skills,
		log:              m.opts.Log,
		ctx:              ctx,
		cancel:           cancel,
		subs:             map[Subscriber]struct{}{},
		sessionApproved:  map[string]bool{},
		closeDone:        make(chan struct{}),
		onClosed:         m.opts.OnClosed,
	}
	if cfg.Provider.Kind == "replay" {
		s.model = "replay"
	}
	s.ckpt.root, s.limits.MaxCheckpointBytes = m.checkpointRoot(cfg)
	s.ckpt.work, s.ckpt.stopWork = context.WithCancel(context.Background())
	return s, nil
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

// CancelTurns cancels the running turns of the given sessions (all when
// ids is nil) and waits up to ShutdownGrace for them to end. It reports
// whether they all ended in time; the rest are abandoned.
func (m *Manager) CancelTurns(ids []string) bool {
	var targets []*Session
	if ids == nil {
		targets = m.all()
	} else {
		for _, id := range ids {
			if s, err := m.Get(id); err == nil {
				targets = append(targets, s)
			}
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, s := range targets {
			s.mu.Lock()
			if s.active != nil {
				s.active.cancel()
			}
			s.mu.Unlock()
		}
		for _, s := range targets {
			s.turns.Wait()
		}
	}()
	select {
	case <-done:
		return true
	case <-time.After(ShutdownGrace):
		return false
	}
}

// Shutdown stops every session from starting turns (queued prompts stay
// queued) and cancels the running ones, waiting up to ShutdownGrace like
// CancelTurns, then as long again for sessions closed earlier whose close
// is still finishing (a checkpoint, a turn ending). It is for a process that is about to exit: a queued turn
// started now would call the model only to be cut off.
func (m *Manager) Shutdown() bool {
	for _, s := range m.all() {
		s.mu.Lock()
		s.stopping = true
		s.mu.Unlock()
	}
	ended := m.CancelTurns(nil)
	ended = m.closing.waitAll(ShutdownGrace) && ended
	if !ended {
		// What is still running after the grace is a checkpoint's git
		// waiting (on a named pipe, a stalled file system): it is stopped
		// now, or it would outlive this process, waiting for ever.
		m.stopCheckpointWork()
		ended = m.CancelTurns(nil)
		ended = m.closing.waitAll(ShutdownGrace) && ended
	}
	m.stopAllMCP()
	// The logs are synced and their locks released: the sessions are
	// whole on disk for the next process, queued prompts included.
	for _, s := range m.all() {
		s.mu.Lock()
		s.closeDiskLocked()
		s.mu.Unlock()
	}
	return ended
}

// CloseIdle closes sessions that have had no client and no turn for longer
// than maxIdle, and returns their ids.
func (m *Manager) CloseIdle(maxIdle time.Duration) []string {
	now := m.opts.Now()
	var closed []string
	for _, s := range m.all() {
		if d := s.idleFor(now); d > maxIdle {
			if m.Close(s.id) == nil {
				closed = append(closed, s.id)
			}
		}
	}
	return closed
}
