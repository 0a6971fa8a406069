package session

import (
	"context"

	"github.com/google/uuid"

	"scv/runtime/approvals"
	"scv/runtime/config"
	"scv/runtime/tools"
)

// Approval policies; see the protocol's policy table.
const (
	PolicyNever  = "never"
	PolicyOnRisk = "on-risk"
	PolicyAlways = "always"
	PolicyAuto   = "auto"
)

// ApprovalPolicies lists the policies in the order initialize advertises them.
var ApprovalPolicies = []string{PolicyNever, PolicyOnRisk, PolicyAlways, PolicyAuto}

// Decisions a client can send, plus the one the server records when a
// turn ends with its approval still open.
const (
	DecisionApprove        = "approve"
	DecisionDeny           = "deny"
	DecisionApproveSession = "approve-session"
	DecisionCancelled      = "cancelled"
)

// gateOutcome is what the policy table (config.PolicyGate) says to do with
// one call.
type gateOutcome = config.Gate

const (
	gateRun  = config.GateRun
	gateAsk  = config.GateAsk
	gateDeny = config.GateDeny
)

// gateFor applies the policy table to one tool's risk.
func gateFor(policy string, risk tools.Risk) gateOutcome {
	return config.PolicyGate(policy, risk == tools.RiskReadOnly)
}

type pendingApproval struct {
	request ApprovalRequest
	answer  chan string // buffered: the resolver never blocks
	// subject is the call as allow rules see it; covered is false when
	// no rule can allow it (see ruleSubject).
	subject approvals.Call
	covered bool
}

// askedCall is what an approval prompt is about.
type askedCall struct {
	callID, name string
	risk         tools.Risk
	summary      string
	subject      approvals.Call
	covered      bool
	held         heldRule // an unconfirmed rule that covers the call
}

// askApproval publishes an approval request and waits for its decision or
// for the turn to end. It reports whether the call may run.
func (s *Session) askApproval(ctx context.Context, t *turn, c askedCall) (bool, error) {
	p, approved, err := s.openApproval(t, c)
	if p == nil {
		return approved, err
	}
	select {
	case decision := <-p.answer:
		return decision != DecisionDeny, nil
	case <-ctx.Done():
		s.cancelApproval(p)
		return false, ctx.Err()
	}
}

// openApproval publishes the request, or answers at once (nil
// pendingApproval) when the tool is approved for the session or the
// request cannot be sent. The lock is released by defer so that even a
// panic while emitting leaves the session usable.
func (s *Session) openApproval(t *turn, c askedCall) (*pendingApproval, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sessionApproved[c.name] {
		return nil, true, nil
	}
	p := &pendingApproval{answer: make(chan string, 1), subject: c.subject, covered: c.covered}
	suggested, confirms := "", false
	switch {
	case c.held.held() && !c.held.rule.AllowsAnyCommand():
		suggested, confirms = c.held.rule.String(), true // answering with it confirms it
	case c.covered:
		suggested = approvals.Suggest(c.subject)
	}
	p.request = ApprovalRequest{
		SessionID: s.id,
		Seq:       s.seq + 1,
		Approval: Approval{
			TurnID:        t.id,
			ApprovalID:    uuid.NewString(),
			CallID:        c.callID,
			Name:          c.name,
			Risk:          string(c.risk),
			Cwd:           s.cwd,
			Summary:       c.summary,
			SuggestedRule: suggested,
			Notice:        c.held.notice(),
			ConfirmsRule:  confirms,
		},
	}
	if err := s.emitLocked(ApprovalRequested{p.request.Approval}); err != nil {
		return nil, false, err
	}
	s.approvals = append(s.approvals, p)
	return p, false, nil
}

// cancelApproval withdraws an approval the turn no longer waits for.
func (s *Session) cancelApproval(p *pendingApproval) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dropApprovalLocked(p.request.ApprovalID) {
		s.announceLocked(ApprovalResolved{p.request.TurnID, p.request.ApprovalID, DecisionCancelled})
	}
}

// Resolve answers an open approval. The first resolver wins; later ones,
// and unknown ids, get approval_not_found.
func (s *Session) Resolve(approvalID, decision string) error {
	switch decision {
	case DecisionApprove, DecisionDeny, DecisionApproveSession:
	default:
		return errorf(CodeInvalidParams, "decision must be approve, deny or approve-session, not %q", decision)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	found := s.findApprovalLocked(approvalID)
	if found == nil {
		return errorf(CodeApprovalNotFound, "approval %s is not pending in session %s", approvalID, s.id)
	}
	// Stored first: an answer that could not be stored is refused and
	// the approval stays open.
	if err := s.emitResolvedLocked(found.request, decision); err != nil {
		return err
	}
	s.dropApprovalLocked(approvalID)
	if decision == DecisionApproveSession {
		s.sessionApproved[found.request.Name] = true
	}
	found.answer <- decision
	return nil
}

func (s *Session) findApprovalLocked(approvalID string) *pendingApproval {
	for _, p := range s.approvals {
		if p.request.ApprovalID == approvalID {
			return p
		}
	}
	return nil
}

func (s *Session) emitResolvedLocked(req ApprovalRequest, decision string) error {
	return s.emitLocked(ApprovalResolved{req.TurnID, req.ApprovalID, decision})
}

func (s *Session) dropApprovalLocked(approvalID string) bool {
	for i, p := range s.approvals {
		if p.request.ApprovalID == approvalID {
			s.approvals = append(s.approvals[:i:i], s.approvals[i+1:]...)
			return true
		}
	}
	return false
}
