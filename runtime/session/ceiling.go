package session

import (
	"scv/runtime/ceiling"
	"scv/runtime/config"
)

// Who gave the flags a ceiling takes, as its errors name them (and the
// session's file keeps them: a source stays named for what it did).
const (
	flagsOfForwarder     = "the scv process that forwarded the session's start (initializationOptions.scv.flags)"
	flagsOfLoadForwarder = "the scv process that forwarded the session's load (initializationOptions.scv.flags)"
	flagsOfStarter       = "the scv process that started the session"
	flagsOfLoader        = "the scv process that loaded the session"
	flagsOfPrompter      = "this window's scv process (initializationOptions.scv.flags)"
)

// flagSources name whose flags a ceiling takes: the connection's that asked
// (a forwarding bridge's, flagsOfForwarder or flagsOfLoadForwarder) and
// this process's own (flagsOfStarter or flagsOfLoader).
type flagSources struct{ conn, server string }

var (
	startedBy = flagSources{flagsOfForwarder, flagsOfStarter}
	loadedBy  = flagSources{flagsOfLoadForwarder, flagsOfLoader}
)

// boundCeiling is c tightened by what may only make a session stricter:
// the project file of cwd as it is now (its approval policy, and tools off
// for good when it sets tools.enabled = false), the flags of the connection that
// starts or loads the session (a forwarding bridge's) and this process's
// own flags, named by who. The user's own file is not a bound: its policy
// is a default the user may change from an editor.
func (m *Manager) boundCeiling(c ceiling.Ceiling, cwd string, connFlags config.Overrides, who flagSources) (ceiling.Ceiling, error) {
	project, err := config.ProjectBoundsOf(m.opts.Home, cwd)
	if err != nil {
		return ceiling.Ceiling{}, err
	}
	bounds := []ceiling.Bound{ceiling.FlagBound(connFlags.ApprovalPolicy, who.conn), ceiling.FlagBound(m.opts.Flags.ApprovalPolicy, who.server)}
	if project.ApprovalPolicy != "" {
		bounds = append(bounds, ceiling.ProjectBound(project.ApprovalPolicy, project.File))
	}
	c, err = c.With(bounds...)
	if err != nil {
		return ceiling.Ceiling{}, err
	}
	if project.ToolsOff {
		c = c.WithToolsOff("tools.enabled = false in " + project.File)
	}
	for _, f := range []struct {
		flags config.Overrides
		who   string
	}{{connFlags, who.conn}, {m.opts.Flags, who.server}} {
		if f.flags.NoTools != nil && *f.flags.NoTools {
			c = c.WithToolsOff("--no-tools of " + f.who)
		}
	}
	return c, nil
}

// holdPolicy makes the policy a session starts or loads with as strict as
// its ceiling where it is looser (see ceiling.Hold); a policy the ceiling
// cannot hold refuses the start or the load, naming where it came from.
func holdPolicy(cfg *config.Config, c ceiling.Ceiling, origin string) error {
	policy, err := c.Hold(cfg.Agent.ApprovalPolicy)
	if err != nil {
		return errorf(CodeInvalidParams, "%v (the policy is from %s)", err, origin)
	}
	cfg.Agent.ApprovalPolicy = policy
	return nil
}

// CheckPrompter refuses a prompt (scv/turn/start, one queued behind a
// running turn, a queued prompt's edit, scv/turn/steer, ACP session/prompt
// through a daemon) from a connection whose flags would not hold for the
// turn it causes: an --approval stricter in some tool class than s's
// ceiling, or --no-tools while s offers tools. The flags of a window that
// attaches to a live session do not change it (its policy is the choice of
// whoever started it), so the stricter window may watch it and answer its
// approvals, but must not cause a tool to run looser than it asked.
func (s *Session) CheckPrompter(flags config.Overrides) error {
	s.mu.Lock()
	policy, toolsOn := s.cfg.Agent.ApprovalPolicy, s.cfg.Tools.Enabled
	s.mu.Unlock()
	if b := ceiling.FlagBound(flags.ApprovalPolicy, flagsOfPrompter); !s.ceiling.Covers(b) {
		return errorf(CodeInvalidParams,
			"this window's --approval=%s is stricter than live session %s, whose policy is %q under the approval ceiling %s: "+
				"a window's flags do not change a session another window started, so its prompts would run looser than the flag; "+
				"start a new session from this window, or prompt this one from a window without --approval=%s",
			flags.ApprovalPolicy, s.id, policy, s.ceiling.Describe(), flags.ApprovalPolicy)
	}
	if flags.NoTools != nil && *flags.NoTools && toolsOn {
		return errorf(CodeInvalidParams,
			"this window's --no-tools does not hold for live session %s, which offers tools (policy %q): "+
				"a window's flags do not change a session another window started; "+
				"start a new session from this window, or prompt this one from a window without --no-tools",
			s.id, policy)
	}
	return nil
}
