package session

import (
	"slices"
	"strings"
	"unicode"

	"scv/runtime/provider"
)

// Configuration is the model and approval policy a session's next model
// call and tool calls use.
type Configuration struct {
	Model          string `json:"model"`
	ApprovalPolicy string `json:"approvalPolicy"`
	// AllowedPolicies are the policies the session's ceiling admits, in
	// the order of ApprovalPolicies: what a mode picker may offer.
	AllowedPolicies []string `json:"allowedPolicies"`
}

// Configure switches the session's model and approval policy (an empty
// value keeps the current one) from its next model call on, and tells
// every window with SessionConfigured. A policy looser than the session's
// ceiling in any tool class is refused, naming the ceiling's sources (see
// runtime/ceiling). It returns the values now in force.
func (s *Session) Configure(model, policy string) (Configuration, error) {
	if policy != "" {
		if !slices.Contains(ApprovalPolicies, policy) {
			return Configuration{}, errorf(CodeInvalidParams, "approvalPolicy must be one of %v, not %q", ApprovalPolicies, policy)
		}
		if err := s.ceiling.Check(policy); err != nil {
			return Configuration{}, errorf(CodeInvalidParams, "%v", err)
		}
	}
	if model != "" {
		if err := validateModel(model); err != nil {
			return Configuration{}, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Configuration{}, errorf(CodeSessionNotFound, "session %s is closed", s.id)
	}
	before, model0, cfgModel, policy0 := s.configurationLocked(), s.model, s.cfg.Provider.Model, s.cfg.Agent.ApprovalPolicy
	if model != "" {
		s.model = model
		s.cfg.Provider.Model = model
	}
	if policy != "" {
		s.cfg.Agent.ApprovalPolicy = policy
	}
	now := s.configurationLocked()
	if now.Model == before.Model && now.ApprovalPolicy == before.ApprovalPolicy {
		return now, nil
	}
	err := s.undoOnRefusal(SessionConfigured{Model: now.Model, ApprovalPolicy: now.ApprovalPolicy}, func() {
		s.model, s.cfg.Provider.Model, s.cfg.Agent.ApprovalPolicy = model0, cfgModel, policy0
	})
	if err != nil {
		return before, err
	}
	return now, nil
}

func (s *Session) configurationLocked() Configuration {
	return Configuration{Model: s.model, ApprovalPolicy: s.cfg.Agent.ApprovalPolicy, AllowedPolicies: s.ceiling.Allowed()}
}

// validateModel refuses what cannot be a model id: it is sent in every
// request and shown in every window.
func validateModel(model string) error {
	if strings.TrimSpace(model) != model || strings.ContainsFunc(model, unicode.IsControl) {
		return errorf(CodeInvalidParams, "model %q: a model id is one line without surrounding spaces", model)
	}
	return nil
}

// nextRequest starts the turn's next model request: the model in force
// and the response bounds. Read under the lock, since Configure changes
// the configuration while a turn runs.
func (s *Session) nextRequest() provider.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return provider.Request{Model: s.model, Limits: ResponseLimits(s.cfg)}
}
