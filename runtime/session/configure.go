package session

import (
	"slices"
	"strings"
	"unicode"

	"scv/runtime/config"
	"scv/runtime/provider"
)

// Configuration is the model and approval policy a session's next model
// call and tool calls use.
type Configuration struct {
	Model          string `json:"model"`
	ApprovalPolicy string `json:"approvalPolicy"`
}

// Configure switches the session's model and approval policy (an empty
// value keeps the current one) from its next model call on, and tells
// every window with SessionConfigured. A policy looser than the one the
// workspace's project file sets is refused, as a project file's own
// looser policy is (config.CheckLivePolicy). It returns the values now in
// force.
func (s *Session) Configure(model, policy string) (Configuration, error) {
	if policy != "" {
		if !slices.Contains(ApprovalPolicies, policy) {
			return Configuration{}, errorf(CodeInvalidParams, "approvalPolicy must be one of %v, not %q", ApprovalPolicies, policy)
		}
		projectPolicy, file, err := config.ProjectPolicy(s.home, s.cwd)
		if err != nil {
			return Configuration{}, errorf(CodeInvalidParams, "approvalPolicy %q: %v", policy, err)
		}
		if err := config.CheckLivePolicy(policy, projectPolicy, file); err != nil {
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
	if now == before {
		return now, nil
	}
	err := s.undoOnRefusal(SessionConfigured(now), func() {
		s.model, s.cfg.Provider.Model, s.cfg.Agent.ApprovalPolicy = model0, cfgModel, policy0
	})
	if err != nil {
		return before, err
	}
	return now, nil
}

func (s *Session) configurationLocked() Configuration {
	return Configuration{Model: s.model, ApprovalPolicy: s.cfg.Agent.ApprovalPolicy}
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
