package session

import "time"

// Stopping many sessions at once: the turns of a process about to exit,
// and the sessions an idle sweep closes.

// ShutdownGrace is how long Shutdown waits for cancelled turns to end
// before abandoning them.
const ShutdownGrace = 3 * time.Second

// CancelTurns cancels the running turns of the given sessions (all when
// ids is nil) and waits up to ShutdownGrace for them to end. It reports
// whether they all ended in time; the rest are abandoned.
func (m *Manager) CancelTurns(ids []string) bool {
	var targets []*Session
	if ids == nil {
		targets = m.all()
	} else {
		for _, id := range ids {
			if s, err := m.Get(id); err == nil {
				targets = append(targets, s)
			}
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, s := range targets {
			s.mu.Lock()
			if s.active != nil {
				s.active.cancel()
			}
			s.mu.Unlock()
		}
		for _, s := range targets {
			s.turns.Wait()
		}
	}()
	select {
	case <-done:
		return true
	case <-time.After(ShutdownGrace):
		return false
	}
}

// Shutdown stops every session from starting turns (queued prompts stay
// queued) and cancels the running ones, waiting up to ShutdownGrace like
// CancelTurns, then as long again for sessions closed earlier whose close
// is still finishing (a checkpoint, a turn ending). It is for a process that is about to exit: a queued turn
// started now would call the model only to be cut off.
func (m *Manager) Shutdown() bool {
	for _, s := range m.all() {
		s.mu.Lock()
		s.stopping = true
		s.mu.Unlock()
	}
	ended := m.CancelTurns(nil)
	ended = m.closing.waitAll(ShutdownGrace) && ended
	if !ended {
		// What is still running after the grace is a checkpoint's git
		// waiting (on a named pipe, a stalled file system): it is stopped
		// now, or it would outlive this process, waiting for ever.
		m.stopCheckpointWork()
		ended = m.CancelTurns(nil)
		ended = m.closing.waitAll(ShutdownGrace) && ended
	}
	m.stopAllMCP()
	// The logs are synced and their locks released: the sessions are
	// whole on disk for the next process, queued prompts included.
	for _, s := range m.all() {
		s.mu.Lock()
		s.closeDiskLocked()
		s.mu.Unlock()
	}
	return ended
}

// CloseIdle closes sessions that have had no client and no turn for longer
// than maxIdle, and returns their ids. A session whose records wait in
// memory for room (a full disk) stays loaded: its close would lose them.
func (m *Manager) CloseIdle(maxIdle time.Duration) []string {
	now := m.opts.Now()
	var closed []string
	for _, s := range m.all() {
		if d := s.idleFor(now); d > maxIdle && s.writtenWhole() {
			if m.Close(s.id) == nil {
				closed = append(closed, s.id)
			}
		}
	}
	return closed
}
