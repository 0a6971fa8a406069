package session

import (
	"context"
	"encoding/json"
	"fmt"

	"scv/runtime/approvals"
	"scv/runtime/config"
	"scv/runtime/tools"
)

// Standing approvals: the [approvals] allow rules of the user's config let
// a call the policy would ask about run without asking (a call the policy
// refuses stays refused). They are read from the user's file at each such
// call, so a rule added from any window or process applies at once; but a
// rule that appeared while a tool call ran waits for the user's
// confirmation (see config.RuleWatch), since that call may have written
// it.

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

// heldRule is a rule of the user's file that covers a call but waits for
// the user's confirmation; the zero value is none.
type heldRule struct {
	rule approvals.Rule
	file string
}

func (h heldRule) held() bool { return h.rule.String() != "" }

// notice is what the approval prompt says about it.
func (h heldRule) notice() string {
	if !h.held() {
		return ""
	}
	how := `approving with it as the allow rule ("Always allow") confirms it`
	if h.rule.AllowsAnyCommand() {
		how = "it would allow any command at all, so it is not offered here; approving with it as the allow rule confirms it, or remove it from the file"
	}
	return fmt.Sprintf("the rule %q in %s would allow this call, but it appeared while a tool call ran, so scv does not apply it until you confirm it: %s",
		h.rule.String(), h.file, how)
}

// allowedByRule reports whether one of the user's trusted rules allows
// the call, and else which unconfirmed rule would. A user file that no
// longer loads, or a ledger that cannot be kept, allows nothing: the user
// is asked.
func (s *Session) allowedByRule(call approvals.Call) (bool, heldRule) {
	cfg, src, err := config.Load(config.LoadOptions{Home: s.home})
	if err != nil {
		s.logger().Warn("the user's config does not load; its approval rules are not applied", "session", s.id, "err", err)
		return false, heldRule{}
	}
	rules, err := approvals.ParseAll(cfg.Approvals.Allow)
	if err != nil {
		return false, heldRule{} // validation refused them already
	}
	trust, err := s.rules.Trust()
	if err != nil {
		s.logger().Warn("the approval rules' ledger cannot be kept; no rule is applied", "session", s.id, "err", err)
		return false, heldRule{}
	}
	trusted, unconfirmed := rules.Only(trust.Trusted), rules.Only(trust.Unconfirmed)
	if _, ok := trusted.Allows(call); ok {
		return true, heldRule{}
	}
	if r, ok := unconfirmed.Allows(call); ok {
		return false, heldRule{rule: r, file: src.UserFile}
	}
	return false, heldRule{}
}

// runWatched runs a tool; one that can change files runs while the rules'
// ledger watches, so that a rule it adds to the user's file is not applied
// unconfirmed. The end is recorded even when the tool panics.
func (s *Session) runWatched(ctx context.Context, tool tools.Tool, args json.RawMessage) tools.Result {
	if tool.Risk() != tools.RiskReadOnly {
		end, err := s.rules.Begin()
		if err != nil {
			s.logger().Warn("cannot record a running tool call in the approval rules' ledger", "session", s.id, "err", err)
		}
		defer func() {
			if err := end(); err != nil {
				s.logger().Warn("cannot record a tool call's end in the approval rules' ledger", "session", s.id, "err", err)
			}
		}()
	}
	return tool.Run(ctx, args)
}

// ResolveWithRule approves an open approval and adds rule to the user's
// [approvals] allow, so calls like it run without asking from now on, in
// every session; a rule already there that waited for confirmation is
// confirmed. The rule must cover the call asked about. It returns the
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
	path, err := s.rules.Add(rule)
	if err != nil {
		return "", err
	}
	return path, s.Resolve(approvalID, DecisionApprove)
}
