package session

import (
	"context"

	"github.com/google/uuid"

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

type gateOutcome int

const (
	gateRun gateOutcome = iota
	gateAsk
	gateDeny
)

// gateFor applies the policy table to one tool's risk.
func gateFor(policy string, risk tools.Risk) gateOutcome {
	readOnly := risk == tools.RiskReadOnly
	switch policy {
	case PolicyAuto:
		return gateRun
	case PolicyAlways:
		return gateAsk
	case PolicyNever:
		if readOnly {
			return gateRun
		}
		return gateDeny
	default: // on-risk
		if readOnly {
			return gateRun
		}
		return gateAsk
	}
}

type pendingApproval struct {
	request ApprovalRequest
	answer  chan string // buffered: the resolver never blocks
}

// askApproval publishes an approval request and waits for its decision or
// for the turn to end. It reports whether the call may run.
func (s *Session) askApproval(ctx context.Context, t *turn, callID, name string, risk tools.Risk, summary string) (bool, error) {
	s.mu.Lock()
	if s.sessionApproved[name] {
		s.mu.Unlock()
		return true, nil
	}
	p := &pendingApproval{answer: make(chan string, 1)}
	p.request = ApprovalRequest{
		SessionID: s.id,
		Seq:       s.seq + 1,
		Approval: Approval{
			TurnID:     t.id,
			ApprovalID: uuid.NewString(),
			CallID:     callID,
			Name:       name,
			Risk:       string(risk),
			Cwd:        s.cwd,
			Summary:    summary,
		},
	}
	if err := s.emitLocked(ApprovalRequested{p.request.Approval}); err != nil {
		s.mu.Unlock()
		return false, err
	}
	s.approvals = append(s.approvals, p)
	s.mu.Unlock()

	select {
	case decision := <-p.answer:
		return decision != DecisionDeny, nil
	case <-ctx.Done():
		s.mu.Lock()
		if s.dropApprovalLocked(p.request.ApprovalID) {
			_ = s.emitResolvedLocked(p.request, DecisionCancelled)
		}
		s.mu.Unlock()
		return false, ctx.Err()
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
	var found *pendingApproval
	for _, p := range s.approvals {
		if p.request.ApprovalID == approvalID {
			found = p
		}
	}
	if found == nil {
		return errorf(CodeApprovalNotFound, "approval %s is not pending in session %s", approvalID, s.id)
	}
	s.dropApprovalLocked(approvalID)
	if decision == DecisionApproveSession {
		s.sessionApproved[found.request.Name] = true
	}
	found.answer <- decision
	return s.emitResolvedLocked(found.request, decision)
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
