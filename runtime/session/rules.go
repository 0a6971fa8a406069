package session

import (
	"encoding/json"

	"scv/runtime/approvals"
	"scv/runtime/config"
	"scv/runtime/tools"
)

// Standing approvals: the [approvals] allow rules of the user's config let
// a call the policy would ask about run without asking (a call the policy
// refuses stays refused). They are read from the user's file at each such
// call, so a rule added from any window or process applies at once.

// ruleSubject is a call as allow rules see it; false when no rule can
// cover the tool (reads, MCP tools).
func ruleSubject(tool tools.Tool, args json.RawMessage) (approvals.Call, bool) {
	t, ok := tool.(tools.Subjected)
	if !ok {
		return approvals.Call{}, false
	}
	sub := t.Subject(args)
	return approvals.Call{Command: sub.Command, Path: sub.Path}, sub != (tools.Subject{})
}

// allowedByRule reports whether one of the user's rules allows the call.
// A user file that no longer loads allows nothing: the user is asked.
func (s *Session) allowedByRule(call approvals.Call) bool {
	cfg, _, err := config.Load(config.LoadOptions{Home: s.home})
	if err != nil {
		s.logger().Warn("the user's config does not load; its approval rules are not applied", "session", s.id, "err", err)
		return false
	}
	rules, err := approvals.ParseAll(cfg.Approvals.Allow)
	if err != nil {
		return false // validation refused them already
	}
	_, ok := rules.Allows(call)
	return ok
}

// ResolveWithRule approves an open approval and adds rule to the user's
// [approvals] allow, so calls like it run without asking from now on, in
// every session. The rule must cover the call asked about. It returns the
// file written.
func (s *Session) ResolveWithRule(approvalID, rule string) (string, error) {
	r, err := approvals.Parse(rule)
	if err != nil {
		return "", errorf(CodeInvalidParams, "allowRule: %v", err)
	}
	s.mu.Lock()
	p := s.findApprovalLocked(approvalID)
	s.mu.Unlock()
	if p == nil {
		return "", errorf(CodeApprovalNotFound, "approval %s is not pending in session %s", approvalID, s.id)
	}
	if !p.covered || !r.Matches(p.subject) {
		return "", errorf(CodeInvalidParams, "allowRule %q does not cover the call asked about (%s)", rule, p.request.Summary)
	}
	path, err := config.AppendAllowRule(s.home, rule)
	if err != nil {
		return "", err
	}
	return path, s.Resolve(approvalID, DecisionApprove)
}
