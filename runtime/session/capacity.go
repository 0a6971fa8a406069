package session

// slot is a place among the open sessions, taken before a session is built
// so that concurrent starts cannot together exceed Limits.MaxSessions.
type slot struct {
	m      *Manager
	filled bool
}

// reserve takes a slot, or refuses with too_many_sessions when the open
// sessions and those being built reach Limits.MaxSessions (0: no cap).
func (m *Manager) reserve() (*slot, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if max := m.opts.Limits.MaxSessions; max > 0 && len(m.sessions)+m.starting >= max {
		return nil, errorf(CodeTooManySessions, "%d sessions are open, the most this server holds (daemon.max_sessions = %d); close one (scv/session/close) or raise daemon.max_sessions in the user config",
			len(m.sessions), max)
	}
	m.starting++
	return &slot{m: m}, nil
}

// fill registers s in the slot: it is open from now on.
func (sl *slot) fill(s *Session) {
	m := sl.m
	m.mu.Lock()
	m.starting--
	m.sessions[s.id] = s
	m.order = append(m.order, s.id)
	m.mu.Unlock()
	sl.filled = true
}

// release gives back a slot that was not filled (the start failed).
func (sl *slot) release() {
	if sl.filled {
		return
	}
	sl.m.mu.Lock()
	sl.m.starting--
	sl.m.mu.Unlock()
}
