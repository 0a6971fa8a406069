package session

// ApprovalPolicy returns the policy that gates the session's next tool call.
func (s *Session) ApprovalPolicy() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.Agent.ApprovalPolicy
}

// SetApprovalPolicy changes the policy for the session's next tool calls
// (a front door's mode switch). Like a command-line flag it is the user's
// own choice, so it may be looser than a project config would allow.
func (s *Session) SetApprovalPolicy(policy string) error {
	valid := false
	for _, p := range ApprovalPolicies {
		valid = valid || p == policy
	}
	if !valid {
		return errorf(CodeInvalidParams, "approval policy must be one of %v, not %q", ApprovalPolicies, policy)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cfg.Agent.ApprovalPolicy = policy
	return nil
}
