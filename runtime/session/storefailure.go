package session

import (
	"errors"

	"scv/runtime/store"
)

// seqHeadroom is how many seqs below the durable reservation a refusable
// event leaves to the events that must go out anyway (a turn's end, a
// restore): when the reservation cannot be extended (a full disk), the
// refusable ones are refused first, and those that must go out still
// have seqs no reload goes below. The longest run of those is a turn's
// end followed by one queue.enqueued per steer it never read (at most
// MaxQueueItems) and the pause of pauseOnStoreFailureLocked; the rest
// leaves room for a close, a restore and the approvals they cancel.
const seqHeadroom = MaxQueueItems + 64

// storeFailedLocked logs that ev's record could not be stored (once, when
// the log starts failing) and returns the refusal its sender gets:
// session_too_large when the log reached its bound, else store_failed.
func (s *Session) storeFailedLocked(ev Event, err error) error {
	if errors.Is(err, store.ErrTooLarge) {
		return errorf(CodeSessionTooLarge, "session %s cannot grow: %v; start a new session, or fork an earlier turn (scv/session/fork) to go on from there", s.id, err)
	}
	if !s.disk.failing {
		s.disk.failing = true
		s.logger().Error("the session could not be written to its file; changes are refused with store_failed until it can, and what was kept in memory is written then",
			"session", s.id, "seq", ev.Seq, "err", err)
	}
	return errorf(CodeStoreFailed, "session %s could not be stored, so the change was not made: %v", s.id, err)
}

// storedLocked notes a successful write after failures.
func (s *Session) storedLocked() {
	if s.disk.failing {
		s.disk.failing = false
		s.logger().Info("the session is written to its file again", "session", s.id)
	}
}

// writeMetaLocked rewrites the sidecar from the session's state; when it
// fails, the next stored record tries again.
func (s *Session) writeMetaLocked() {
	if err := s.disk.log.SetMeta(s.metaLocked()); err != nil {
		if !s.disk.metaStale {
			s.logger().Error("the session's listing (title, turns, queued) could not be written; it is tried again with the next record",
				"session", s.id, "err", err)
		}
		s.disk.metaStale = true
		return
	}
	s.disk.metaStale = false
}

func (s *Session) metaLocked() store.Meta {
	return store.Meta{Title: s.title, Turns: s.turnCount, Queued: len(s.queue), Model: s.cfg.Provider.Model}
}

// pauseOnStoreFailureLocked pauses a session with prompts queued whose
// turn failed because it could not be stored (store_failed, or
// session_too_large). The next prompts would fail the same way, each
// consumed, and the model called for nothing; their turns' starts and
// ends, which go out whatever the disk says, would take seqs past what
// the reservation's headroom keeps. Paused, they wait for the user to
// resume once there is room (or to fork).
func (s *Session) pauseOnStoreFailureLocked(o outcome) {
	if code := CodeOf(o.err); code != CodeStoreFailed && code != CodeSessionTooLarge || s.paused || len(s.queue) == 0 {
		return
	}
	s.paused = true
	s.announceLocked(SessionPaused{true})
}

// writtenWhole reports whether every record the session appended is in
// its file, syncing the ones that wait (for room on a full disk) first.
func (s *Session) writtenWhole() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.syncDiskLocked()
	return !s.disk.dirty
}
