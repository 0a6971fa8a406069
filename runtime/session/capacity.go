package session

// reserve counts a session about to be built against Limits.MaxSessions,
// so that concurrent starts cannot together exceed it; release undoes it
// once the session is registered or has failed.
func (m *Manager) reserve() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if max := m.opts.Limits.MaxSessions; max > 0 && len(m.sessions)+m.starting >= max {
		return errorf(CodeTooManySessions, "%d sessions are open, the most this server holds (daemon.max_sessions = %d); close one (scv/session/close) or raise daemon.max_sessions in the user config",
			len(m.sessions), max)
	}
	m.starting++
	return nil
}

func (m *Manager) release() {
	m.mu.Lock()
	m.starting--
	m.mu.Unlock()
}
