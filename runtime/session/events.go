package session

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Notification methods the runtime emits. The lsp package advertises this
// list at initialize, so it must hold every method emit is called with.
const (
	EvTurnStarted        = "scv/turn/started"
	EvAssistantDelta     = "scv/assistant/delta"
	EvAssistantCompleted = "scv/assistant/completed"
	EvToolProposed       = "scv/tool/proposed"
	EvToolStarted        = "scv/tool/started"
	EvToolCompleted      = "scv/tool/completed"
	EvApprovalRequested  = "scv/approval/requested"
	EvApprovalResolved   = "scv/approval/resolved"
	EvContextCompacted   = "scv/context/compacted"
	EvTurnCompleted      = "scv/turn/completed"
	EvTurnCancelled      = "scv/turn/cancelled"
	EvTurnFailed         = "scv/turn/failed"
	EvQueueSnapshot      = "scv/queue/snapshot"
	EvQueueEnqueued      = "scv/queue/enqueued"
	EvQueueUpdated       = "scv/queue/updated"
	EvQueueMoved         = "scv/queue/moved"
	EvQueueRemoved       = "scv/queue/removed"
	EvQueueDequeued      = "scv/queue/dequeued"
	EvSessionPaused      = "scv/session/paused"
	EvSessionCleared     = "scv/session/cleared"
	EvSessionClosed      = "scv/session/closed"
	// Per-connection notifications: no seq of their own, never in the ring.
	EvSessionLagged = "scv/session/lagged"
	EvSessionGap    = "scv/session/gap"
)

// Notifications lists every method above, in the order the protocol page
// documents them.
var Notifications = []string{
	EvTurnStarted, EvAssistantDelta, EvAssistantCompleted, EvToolProposed, EvToolStarted,
	EvToolCompleted, EvApprovalRequested, EvApprovalResolved, EvContextCompacted,
	EvTurnCompleted, EvTurnCancelled, EvTurnFailed, EvQueueSnapshot, EvQueueEnqueued,
	EvQueueUpdated, EvQueueMoved, EvQueueRemoved, EvQueueDequeued, EvSessionPaused,
	EvSessionCleared, EvSessionClosed, EvSessionLagged, EvSessionGap,
}

// Event is one numbered notification of a session, encoded once and shared by
// every attached connection.
type Event struct {
	SessionID string
	Seq       uint64
	Method    string
	Params    json.RawMessage
	// Frame is the event as the transport writes it (Options.Frame), built
	// once and shared by every attached connection.
	Frame []byte
}

// Subscriber receives a session's events. Deliver is called with the
// session's lock held, in seq order, and must not block.
type Subscriber interface {
	Deliver(ev Event)
}

// QueueEntry is one waiting prompt.
type QueueEntry struct {
	QueueID   string `json:"queueId"`
	Revision  uint64 `json:"revision"`
	Prompt    string `json:"prompt"`
	Submitter string `json:"submitter"`
	// attachments is the editor context resolved when the prompt was queued.
	attachments string
}

func (e QueueEntry) bytes() int { return len(e.Prompt) + len(e.attachments) }

// Approval is what an approval prompt shows: the members of
// scv/approval/requested after sessionId and seq.
type Approval struct {
	TurnID     string `json:"turnId"`
	ApprovalID string `json:"approvalId"`
	CallID     string `json:"callId"`
	Name       string `json:"name"`
	Risk       string `json:"risk"`
	Cwd        string `json:"cwd"`
	Summary    string `json:"summary"`
}

// ApprovalRequest is the params of scv/approval/requested, also listed in
// a Snapshot's pendingApprovals.
type ApprovalRequest struct {
	SessionID string `json:"sessionId"`
	Seq       uint64 `json:"seq"`
	Approval
}

// eventTooLarge means an event's params exceed what one server frame may carry.
type eventTooLarge struct {
	method string
	size   int
	limit  int
}

func (e *eventTooLarge) Error() string {
	return fmt.Sprintf("%s event of %d bytes exceeds the server frame limit of %d bytes", e.method, e.size, e.limit)
}

// emitLocked numbers, records and fans out one event. fields are the
// event's own params; sessionId and seq are added here. s.mu must be held.
func (s *Session) emitLocked(method string, fields any) error {
	seq := s.seq + 1
	params, err := encodeParams(s.id, seq, fields)
	if err != nil {
		return fmt.Errorf("encode %s: %w", method, err)
	}
	if len(params)+frameOverheadBytes > s.limits.MaxServerFrameBytes {
		return &eventTooLarge{method: method, size: len(params), limit: s.limits.MaxServerFrameBytes}
	}
	s.seq = seq
	ev := Event{SessionID: s.id, Seq: seq, Method: method, Params: params}
	if s.frame != nil {
		ev.Frame = s.frame(method, params)
	}
	s.ring.push(ev)
	for sub := range s.subs {
		sub.Deliver(ev)
	}
	return nil
}

// fieldAppender is implemented by the events sent most often (deltas) to
// encode their members without reflection: the streaming hot path.
type fieldAppender interface {
	appendFields(dst []byte) []byte
}

// encodeParams writes sessionId and seq followed by fields' members into
// one JSON object, so no event type needs a copy of the header.
func encodeParams(sessionID string, seq uint64, fields any) (json.RawMessage, error) {
	out := make([]byte, 0, 96+len(sessionID)+sizeHint(fields))
	out = append(out, `{"sessionId":`...)
	out = appendJSONString(out, sessionID)
	out = append(out, `,"seq":`...)
	out = strconv.AppendUint(out, seq, 10)
	switch f := fields.(type) {
	case nil:
	case fieldAppender:
		out = append(out, ',')
		out = f.appendFields(out)
	default:
		rest, err := json.Marshal(fields)
		if err != nil {
			return nil, err
		}
		if len(rest) > 2 { // not "{}"
			out = append(out, ',')
			out = append(out, rest[1:len(rest)-1]...)
		}
	}
	return append(out, '}'), nil
}

func sizeHint(fields any) int {
	if d, ok := fields.(deltaFields); ok {
		return len(d.turnID) + len(d.content) + len(d.content)/8
	}
	return 64
}

// deltaFields are the members of scv/assistant/delta and scv/assistant/completed.
type deltaFields struct {
	turnID  string
	content string
}

func (d deltaFields) appendFields(dst []byte) []byte {
	dst = append(dst, `"turnId":`...)
	dst = appendJSONString(dst, d.turnID)
	dst = append(dst, `,"content":`...)
	return appendJSONString(dst, d.content)
}
