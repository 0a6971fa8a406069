package session

import (
	"sync"
	"time"
)

// closing holds the sessions a Manager closed whose close has not
// finished: a turn still ending, or the last turn's checkpoint still being
// finished, keeps the session's log open. Loading, forking or deleting one
// of them waits for that, rather than fail on the log it still holds or
// read it before its last records.
type closing struct {
	mu   sync.Mutex
	byID map[string]*Session
}

// add records s as closing, and forgets the sessions whose close finished.
func (c *closing) add(s *Session) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byID == nil {
		c.byID = map[string]*Session{}
	}
	for id, other := range c.byID {
		if isClosed(other) {
			delete(c.byID, id)
		}
	}
	c.byID[s.id] = s
}

// wait returns once session id, if it is closing, has closed.
func (c *closing) wait(id string) {
	c.mu.Lock()
	s := c.byID[id]
	c.mu.Unlock()
	if s == nil {
		return
	}
	<-s.closeDone
	c.mu.Lock()
	if c.byID[id] == s {
		delete(c.byID, id)
	}
	c.mu.Unlock()
}

func isClosed(s *Session) bool {
	select {
	case <-s.closeDone:
		return true
	default:
		return false
	}
}

// waitAll returns once every closing session has closed, or false when
// timeout passed first: a process shutting down waits for the checkpoints
// its closed sessions are still finishing, as for its open sessions' turns.
func (c *closing) waitAll(timeout time.Duration) bool {
	pending := c.all()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for _, s := range pending {
		select {
		case <-s.closeDone:
		case <-deadline.C:
			return false
		}
	}
	return true
}

// all returns the sessions still closing.
func (c *closing) all() []*Session {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*Session, 0, len(c.byID))
	for _, s := range c.byID {
		out = append(out, s)
	}
	return out
}
