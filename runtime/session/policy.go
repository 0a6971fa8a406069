package session

// ApprovalPolicy returns the policy that gates the session's next tool call.
func (s *Session) ApprovalPolicy() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.Agent.ApprovalPolicy
}

// SetApprovalPolicy changes the policy for the session's next tool calls
// (a front door's mode switch): Configure with the policy alone.
func (s *Session) SetApprovalPolicy(policy string) error {
	_, err := s.Configure("", policy)
	return err
}
