package session

import (
	"encoding/json"
	"fmt"
)

// logFullPercent is the share of its file's bound (store.Limits.MaxLogBytes)
// past which a session takes no new prompt: the rest is room for the turn
// running and the prompts queued already to be stored whole, so nothing a
// client was answered is refused later, and the file always loads.
const logFullPercent = 80

// logFullAdvice is what a session past logFullPercent tells its user to
// do. A fork copies the records up to the turn it forks at, so only an
// earlier turn makes room.
const logFullAdvice = "start a new session, or fork an earlier turn (scv/session/fork) to go on from there"

// recordMarginBytes is what a terminal event's record may add to the file
// besides its event and the history and reasoning it carries: the
// record's framing, the keys of its extras and the notice itself. The
// notice is judged with it, so it is said, if anything, a little early.
const recordMarginBytes = 1024

// logRoomLocked refuses a new prompt once the session's file is past
// logFullPercent of its bound, with session_too_large suggesting a fork.
func (s *Session) logRoomLocked() error {
	size, bound, ok := s.logSizeLocked()
	if !ok || !pastLogFull(size, bound) {
		return nil
	}
	return errorf(CodeSessionTooLarge, "session %s's file is %d bytes, past %d%% of its bound of %d bytes (sessions.max_log_bytes), so it takes no new prompt: %s",
		s.id, size, logFullPercent, bound, logFullAdvice)
}

// withLogFullNoticeLocked returns end, a turn's terminal event, with the
// notice that the session's file is past logFullPercent of its bound once
// end is stored: said once per session, by the end of the turn during
// which the file crossed (or of the first turn to end after a change
// outside a turn crossed it), so the user learns it before a prompt is
// refused. A replay and an export show it with the stored event.
func (s *Session) withLogFullNoticeLocked(end Payload) Payload {
	size, bound, ok := s.logSizeLocked()
	if !ok || s.disk.toldFull {
		return end
	}
	size += s.terminalRecordBytesLocked(end)
	if !pastLogFull(size, bound) {
		return end
	}
	s.disk.toldFull = true
	notice := fmt.Sprintf("this session's file is about %d bytes, past %d%% of its bound of %d bytes (sessions.max_log_bytes), so it takes no new prompt: %s",
		size, logFullPercent, bound, logFullAdvice)
	switch e := end.(type) {
	case TurnCompleted:
		e.Notice = notice
		return e
	case TurnCancelled:
		e.Notice = notice
		return e
	case TurnFailed:
		e.Notice = notice
		return e
	}
	return end
}

// TurnEndNotice is the notice a turn's terminal event carries ("" for
// another event).
func TurnEndNotice(end Payload) string {
	switch e := end.(type) {
	case TurnCompleted:
		return e.Notice
	case TurnCancelled:
		return e.Notice
	case TurnFailed:
		return e.Notice
	}
	return ""
}

// terminalRecordBytesLocked estimates what storing end adds to the file:
// its event, the history and reasoning its record carries (persistLocked)
// and recordMarginBytes.
func (s *Session) terminalRecordBytesLocked(end Payload) int64 {
	_, n := measurePayload(end)
	if len(s.disk.pending) > 0 {
		if h, err := json.Marshal(s.disk.pending); err == nil {
			n += len(h)
		}
	}
	for _, r := range s.disk.reasoning {
		n += r.text.Len()
	}
	return int64(n + recordMarginBytes)
}

func (s *Session) logSizeLocked() (size, bound int64, ok bool) {
	d := &s.disk
	if d.log == nil || d.store == nil {
		return 0, 0, false
	}
	return d.log.Size(), d.store.MaxLogBytes(), true
}

// toldFullAtLoad is whether a session loaded from d has said its file is
// nearly full: told, a stored turn's end said so, and the file is still
// past logFullPercent of the bound (one raised since is said anew when
// the file passes 80 % of it).
func (d *disk) toldFullAtLoad(told bool) bool {
	return told && pastLogFull(d.log.Size(), d.store.MaxLogBytes())
}

func pastLogFull(size, bound int64) bool { return size*100 >= bound*logFullPercent }
