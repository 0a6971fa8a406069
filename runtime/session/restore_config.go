package session

import (
	"scv/runtime/ceiling"
	"scv/runtime/config"
	"scv/runtime/store"
)

// restored is what a stored session loads with.
type restored struct {
	cfg  config.Config
	ceil ceiling.Ceiling
	// tightened is set when the load's bounds (the project file now, the
	// flags) make ceil stricter in some class than the ceiling stored with
	// the session: the session's approve-session grants were answers under
	// the looser one, so the load does not keep them.
	tightened bool
}

// restoredConfig is the configuration and ceiling a stored session loads
// with. The ceiling is the one stored when the session started, tightened
// by the project file as it is now, by the flags of the connection that
// asked for the load (a forwarding bridge's) and by this process's own; the
// policy the session stored is held to it (ceiling.Hold), and a load it
// cannot hold is refused, naming the ceiling's sources.
func (m *Manager) restoredConfig(cwd string, h store.Header, configured *SessionConfigured, connFlags config.Overrides) (restored, error) {
	refused := func(err error) (restored, error) {
		return restored{}, errorf(CodeInvalidParams, "session %s cannot be loaded: %v", h.ID, err)
	}
	stored, err := ceiling.Decode(h.Ceiling)
	if err != nil {
		return refused(err)
	}
	ceil, err := m.boundCeiling(stored, cwd, connFlags, loadedBy)
	if err != nil {
		return refused(err)
	}
	own, flags := storedOverrides(h, configured, m.opts.Flags, ceil)
	cfg, src, err := config.Load(config.LoadOptions{Home: m.opts.Home, Cwd: cwd, Overrides: own, Flags: flags})
	if err != nil {
		return refused(err)
	}
	wanted := cfg.Agent.ApprovalPolicy
	if err := holdPolicy(&cfg, ceil, src.Origin("agent.approval_policy")); err != nil {
		return refused(err)
	}
	if cfg.Agent.ApprovalPolicy != wanted {
		m.opts.Log.Warn("the stored approval policy was held to the session's ceiling", "session", h.ID,
			"stored", wanted, "now", cfg.Agent.ApprovalPolicy, "ceiling", ceil.Bounds())
	}
	return restored{cfg: cfg, ceil: ceil, tightened: ceil.StricterThan(stored)}, nil
}

// storedOverrides are what a loaded session takes from its own file over
// the user's and the project's config: the provider, model and approval
// policy it was created with, or those scv/session/configure last set, and
// tools off when its ceiling switched them off for good. They beat the
// serving process's command-line flags too, which are returned without
// them: the flags are the defaults of new sessions, and a session keeps its
// own choice across a reload or a restart under other flags (the policy
// still held to the ceiling, which those flags tighten).
func storedOverrides(h store.Header, configured *SessionConfigured, flags config.Overrides, ceil ceiling.Ceiling) (own, rest config.Overrides) {
	own = config.Overrides{Provider: h.Provider, Model: h.Model, ApprovalPolicy: h.ApprovalPolicy}
	if configured != nil {
		own.Model, own.ApprovalPolicy = configured.Model, configured.ApprovalPolicy
	}
	if ceil.ToolsOff() != "" {
		off := true
		own.NoTools = &off
	}
	rest = flags
	if own.Provider != "" {
		rest.Provider = ""
	}
	if own.Model != "" {
		rest.Model = ""
	}
	if own.ApprovalPolicy != "" {
		rest.ApprovalPolicy = ""
	}
	if own.NoTools != nil {
		rest.NoTools = nil
	}
	return own, rest
}
