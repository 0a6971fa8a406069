package session

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"sync"

	"scv/runtime/ceiling"
	"scv/runtime/config"
	"scv/runtime/mcp"
	"scv/runtime/tools"
)

// A session's MCP servers (runtime/mcp) start when the session starts,
// without holding up scv/session/start, and stop when it closes or the
// process shuts down. Their tools join the builtin ones at every model
// step, after the servers have settled. A session without tools (noTools,
// tools.enabled = false) is chat-only: its servers are not started at all.

// mcpParamsPrefix names the session/start member that carries servers, in
// the errors about them.
const mcpParamsPrefix = "params.mcpServers"

// mcpNoToolsReason is the state's reason for servers of a chat-only session.
const mcpNoToolsReason = "not started: tools are disabled in this session"

// mergeMCPServers validates the servers given at session start and adds
// them to cfg's; one with the name of a configured server replaces it.
func mergeMCPServers(cfg *config.Config, given map[string]config.MCPServer) error {
	if len(given) == 0 {
		return nil
	}
	if err := config.ValidateMCPServersJSON(given, mcpParamsPrefix); err != nil {
		return errorf(CodeInvalidParams, "%v", err)
	}
	merged := maps.Clone(cfg.MCPServers)
	if merged == nil {
		merged = map[string]config.MCPServer{}
	}
	maps.Copy(merged, given)
	cfg.MCPServers = merged
	return nil
}

// shellEnvFor is the environment filter of the shell tool, which MCP
// servers share: neither sees the provider's key or a secret-looking
// variable.
func (m *Manager) shellEnvFor(cfg config.Config) tools.ShellEnv {
	return ShellEnvFor(cfg, m.opts.Getenv)
}

// ShellEnvFor is the environment filter cfg gives the shell tool and MCP
// servers, with getenv finding the provider key in use; `scv mcp list
// --check` starts servers through it too.
func ShellEnvFor(cfg config.Config, getenv func(string) string) tools.ShellEnv {
	return tools.ShellEnv{
		ProviderKeyEnv: cfg.Provider.APIKeyEnv,
		ProviderKey:    cfg.APIKey(getenv),
		Allow:          cfg.Tools.Shell.EnvAllow,
		Deny:           cfg.Tools.Shell.EnvDeny,
	}
}

// startMCP starts s's servers in the background. It must be called
// without s.mu: a server's first state is reported at once.
func (m *Manager) startMCP(s *Session) {
	if len(s.cfg.MCPServers) == 0 || !s.cfg.Tools.Enabled {
		return
	}
	logDir := ""
	if m.opts.Home != "" {
		logDir = filepath.Join(m.opts.Home, "logs")
	}
	servers := m.mcpManagerFor(s, logDir)
	s.mu.Lock()
	closed := s.closed
	if !closed {
		s.mcp = servers
	}
	s.mu.Unlock()
	if closed { // closed while starting: nobody else will stop them
		servers.Close()
	}
}

func (m *Manager) mcpManagerFor(s *Session, logDir string) *mcp.Manager {
	// A copy taken under the lock: Configure may change the session's
	// configuration while its servers start.
	s.mu.Lock()
	cfg := s.cfg
	s.mu.Unlock()
	return mcp.Start(mcp.Options{
		Servers:        cfg.MCPServers,
		Dir:            s.cwd,
		LogDir:         logDir,
		StripEnv:       m.shellEnvFor(cfg).Filter,
		OnStatus:       s.mcpStatusChanged,
		MaxOutputBytes: cfg.Tools.MaxOutputBytes,
		Catalogs:       m.mcpCatalogs,
	})
}

// mcpStatusChanged turns a server's new state into an event. A closed
// session tells nobody: its clients have seen session/closed.
func (s *Session) mcpStatusChanged(name string, state mcp.State, err error) {
	ev := McpStatus{Name: name, State: string(state)}
	if err != nil {
		ev.Error = validUTF8(err.Error())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.announceLocked(ev)
	}
}

func (s *Session) mcpManager() *mcp.Manager {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mcp
}

// beginMCPTurn lets every server restart once more during this turn.
func (s *Session) beginMCPTurn() {
	if servers := s.mcpManager(); servers != nil {
		servers.BeginTurn()
	}
}

// stepTools returns the tools of one model step: the builtin ones, then
// those of every ready MCP server once none is starting (or ctx ends;
// the step then goes ahead with the servers ready so far).
func (s *Session) stepTools(ctx context.Context) *tools.Registry {
	servers := s.mcpManager()
	if servers == nil {
		return s.registry
	}
	_ = servers.Settle(ctx)
	offered := servers.AsTools()
	if len(offered) == 0 {
		return s.registry
	}
	return tools.NewRegistry(append(s.registry.All(), offered...)...)
}

// trustedTool is an MCP tool's adapter: Trusted reports the server's
// `trust = true`.
type trustedTool interface{ Trusted() bool }

// gateForTool applies the policy table to one tool, held to the session's
// ceiling. A trusted server's tools are gated like read-only ones: they
// run without asking under never, on-risk and auto, and are still asked
// under always, which asks before every call; but trust never lifts the
// mcp class above the ceiling (under a project's never they are denied).
func gateForTool(policy string, ceil ceiling.Ceiling, tool tools.Tool) gateOutcome {
	if _, ok := tool.(planTool); ok {
		return gateRun // changes nothing outside the session
	}
	if t, ok := tool.(trustedTool); ok && t.Trusted() {
		return ceil.Gate(ceiling.MCP, config.PolicyGate(policy, true))
	}
	return ceil.Gate(ceilingClass(tool.Risk()), gateFor(policy, tool.Risk()))
}

// ceilingClass is the class of the ceiling that bounds a tool of risk;
// network tools are gated like exec ones (the policy table's one column).
func ceilingClass(risk tools.Risk) ceiling.Class {
	switch risk {
	case tools.RiskReadOnly:
		return ceiling.ReadOnly
	case tools.RiskWrite:
		return ceiling.Write
	case tools.RiskMCP:
		return ceiling.MCP
	default:
		return ceiling.Exec
	}
}

// MCPServers reports the session's servers for scv/mcp/list, by name.
func (s *Session) MCPServers() []MCPServerInfo {
	out := []MCPServerInfo{}
	servers := s.mcpManager()
	if servers == nil {
		// Not started: none configured, or a chat-only session.
		names := slices.Sorted(maps.Keys(s.cfg.MCPServers))
		for _, name := range names {
			out = append(out, MCPServerInfo{Name: name, Transport: s.cfg.MCPServers[name].Transport(),
				State: string(mcp.StateStopped), Error: mcpNoToolsReason, Tools: []MCPToolInfo{}})
		}
		return out
	}
	for _, st := range servers.Servers() {
		info := MCPServerInfo{Name: st.Name, Transport: st.Transport, State: string(st.State), Error: st.Error, Tools: []MCPToolInfo{}}
		for _, t := range st.Tools {
			info.Tools = append(info.Tools, MCPToolInfo{Name: t.Name, Tool: t.Tool, Description: t.Description})
		}
		out = append(out, info)
	}
	return out
}

// mcpStops tracks the servers of closed sessions while they stop, so a
// shutdown can wait for them. (A WaitGroup would not do: a session may
// close while a shutdown waits.)
type mcpStops struct {
	mu      sync.Mutex
	pending int
	idle    chan struct{} // closed when pending drops to 0; nil while 0
}

// stop stops servers off the caller's goroutine: a server that ignores
// its closed stdin holds Close for the stop grace, and a session close
// must not hold up the connection that asked for it. Stopping servers
// twice is harmless: the second Close waits for the first.
func (st *mcpStops) stop(servers *mcp.Manager) {
	if servers == nil {
		return
	}
	st.mu.Lock()
	st.pending++
	if st.idle == nil {
		st.idle = make(chan struct{})
	}
	st.mu.Unlock()
	go func() {
		defer st.done()
		servers.Close()
	}()
}

func (st *mcpStops) done() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.pending--
	if st.pending == 0 {
		close(st.idle)
		st.idle = nil
	}
}

// wait returns once nothing is stopping.
func (st *mcpStops) wait() {
	st.mu.Lock()
	idle := st.idle
	st.mu.Unlock()
	if idle != nil {
		<-idle
	}
}

// stopMCP stops a closed session's servers in the background.
func (m *Manager) stopMCP(s *Session) {
	m.mcpStops.stop(s.mcpManager())
}

// stopAllMCP stops the servers of every session and waits until they and
// those of sessions closed before are gone. Sessions stay open; their
// clients see each server stop.
func (m *Manager) stopAllMCP() {
	for _, s := range m.all() {
		m.mcpStops.stop(s.mcpManager())
	}
	m.mcpStops.wait()
}
