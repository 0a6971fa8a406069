package session

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"scv/runtime/provider"
	"scv/runtime/store"
	"scv/runtime/tools"
)

// Event is one numbered event of a session. The runtime says what
// happened in Payload; a front door decides how it looks on its wire.
type Event struct {
	SessionID string
	Seq       uint64
	Payload   Payload
	// size is the event's JSON size as measured against the frame limit.
	size int
	// json is the payload's JSON when measuring the event encoded it
	// (every event but a delta), so that no door encodes it again.
	json []byte
	memo *memo
}

// Payload is one of the event types below.
type Payload interface{ isPayload() }

// Subscriber receives a session's events. Deliver is called with the
// session's lock held, in seq order, and must not block.
type Subscriber interface {
	Deliver(ev Event)
}

// Encoded returns the event as an encoder identified by key renders it,
// calling encode the first time only. The bytes are shared by every
// connection and every replay of the event, so a front door encodes each
// event once per dialect; key is any comparable value private to that door.
//
// The cache lives on the event rather than in each door so that a replay
// from the ring, a late subscriber and a live delivery all find the same
// bytes without a door keeping its own (session, seq) table.
func (e Event) Encoded(key any, encode func(Event) []byte) []byte {
	if e.memo == nil {
		return encode(e)
	}
	m := e.memo
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.first.bytes != nil && m.first.key == key {
		return m.first.bytes
	}
	for _, c := range m.more {
		if c.key == key {
			return c.bytes
		}
	}
	b := encode(e)
	if m.first.bytes == nil {
		m.first = memoEntry{key, b}
	} else {
		m.more = append(m.more, memoEntry{key, b})
	}
	return b
}

// memo holds an event's encodings; the first dialect's sits inline, so
// the common case of one dialect costs no slice.
type memo struct {
	mu    sync.Mutex
	first memoEntry
	more  []memoEntry
}

// memoSlab hands out an event's memo from a block allocated for many, so
// that a streamed delta does not cost an allocation for its memo. A block
// lives while any of its events does; the replay ring holds that many
// anyway.
type memoSlab []memo

// memoSlabSize is how many memos one block holds.
const memoSlabSize = 64

func (m *memoSlab) next() *memo {
	if len(*m) == 0 {
		*m = make(memoSlab, memoSlabSize)
	}
	first := &(*m)[0]
	*m = (*m)[1:]
	return first
}

// bytes returns the bytes of the encodings cached so far.
func (m *memo) bytes() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := len(m.first.bytes)
	for _, c := range m.more {
		n += len(c.bytes)
	}
	return n
}

// forget drops the cached encodings. The ring calls it on an event it
// lets go: the memo sits in a block shared with newer events, which would
// otherwise keep the encodings alive. Whoever still holds the event and
// asks for an encoding gets it made again.
func (m *memo) forget() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.first = memoEntry{}
	m.more = nil
}

type memoEntry struct {
	key   any
	bytes []byte
}

// ContextRef names an attachment of a prompt without its text.
type ContextRef struct {
	URI   string `json:"uri"`
	Range *Range `json:"range,omitempty"`
}

// The event types. Their JSON tags are the member names every dialect so
// far shares; the scv dialect adds sessionId and seq before them.
type (
	TurnStarted struct {
		TurnID  string       `json:"turnId"`
		QueueID string       `json:"queueId,omitempty"`
		Prompt  string       `json:"prompt"`
		Context []ContextRef `json:"context,omitempty"`
	}
	AssistantDelta struct {
		TurnID  string `json:"turnId"`
		Content string `json:"content"`
	}
	AssistantCompleted struct {
		TurnID  string `json:"turnId"`
		Content string `json:"content"`
		// Interrupted marks the text received before the response was
		// cut off (a cancel, a shutdown, a failed stream).
		Interrupted bool `json:"interrupted,omitempty"`
	}
	ToolProposed struct {
		TurnID    string `json:"turnId"`
		CallID    string `json:"callId"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
		// OldText is the text of the file a whole-file write would
		// replace, as the disk holds it, when that file exists, is text
		// and holds at most MaxOldTextBytes.
		OldText *string `json:"oldText,omitempty"`
	}
	ToolStarted struct {
		TurnID string `json:"turnId"`
		CallID string `json:"callId"`
		Name   string `json:"name"`
	}
	ToolCompleted struct {
		TurnID    string `json:"turnId"`
		CallID    string `json:"callId"`
		Name      string `json:"name"`
		Success   bool   `json:"success"`
		Output    string `json:"output"`
		Truncated bool   `json:"truncated"`
	}
	ApprovalRequested struct{ Approval }
	ApprovalResolved  struct {
		TurnID     string `json:"turnId"`
		ApprovalID string `json:"approvalId"`
		Decision   string `json:"decision"`
	}
	ContextCompacted struct {
		TurnID          string `json:"turnId"`
		BeforeTokens    int    `json:"beforeTokens"`
		AfterTokens     int    `json:"afterTokens"`
		RemovedMessages int    `json:"removedMessages"`
	}
	// A turn's terminal event's Notice says, once per session, that the
	// session's file passed 80 % of its bound (see logFullNoticeLocked).
	TurnCompleted struct {
		TurnID         string         `json:"turnId"`
		Steps          int            `json:"steps"`
		Usage          provider.Usage `json:"usage"`
		ChangesPending bool           `json:"changesPending,omitempty"`
		Notice         string         `json:"notice,omitempty"`
	}
	TurnCancelled struct {
		TurnID         string `json:"turnId"`
		ChangesPending bool   `json:"changesPending,omitempty"`
		Notice         string `json:"notice,omitempty"`
	}
	TurnFailed struct {
		TurnID         string `json:"turnId"`
		Code           string `json:"code"`
		Message        string `json:"message"`
		ChangesPending bool   `json:"changesPending,omitempty"`
		Notice         string `json:"notice,omitempty"`
	}
	QueueSnapshot struct{ QueueState }
	QueueEnqueued struct {
		Entry    QueueEntry `json:"entry"`
		Position int        `json:"position"`
	}
	QueueUpdated struct {
		Entry QueueEntry `json:"entry"`
	}
	QueueMoved    struct{ MoveResult }
	QueueRemoved  struct{ RemoveResult }
	QueueDequeued struct {
		QueueID string `json:"queueId"`
		TurnID  string `json:"turnId"`
	}
	SessionPaused struct {
		Paused bool `json:"paused"`
	}
	SessionCleared struct{}
	SessionClosed  struct{}
	SessionRenamed struct {
		Title string `json:"title"`
	}
	// TurnSteered is a prompt added to a running turn: it joined the
	// history at a step boundary and reaches the model in its next request.
	TurnSteered struct {
		TurnID string `json:"turnId"`
		Prompt string `json:"prompt"`
	}
	// SessionConfigured is the model and approval policy in force from
	// the session's next model call.
	SessionConfigured struct {
		Model          string `json:"model"`
		ApprovalPolicy string `json:"approvalPolicy"`
	}
	// SessionRestored says what a load from the store found interrupted:
	// the turn that was running (now failed with code interrupted), the
	// approvals that were pending (now cancelled) and the prompts still
	// queued. The session comes back paused when it is sent.
	SessionRestored struct {
		InterruptedTurnID  string   `json:"interruptedTurnId,omitempty"`
		CancelledApprovals []string `json:"cancelledApprovals"`
		Queued             int      `json:"queued"`
		Paused             bool     `json:"paused"`
	}
)

func (TurnStarted) isPayload()        {}
func (AssistantDelta) isPayload()     {}
func (AssistantCompleted) isPayload() {}
func (ToolProposed) isPayload()       {}
func (ToolStarted) isPayload()        {}
func (ToolCompleted) isPayload()      {}
func (ApprovalRequested) isPayload()  {}
func (ApprovalResolved) isPayload()   {}
func (ContextCompacted) isPayload()   {}
func (TurnCompleted) isPayload()      {}
func (TurnCancelled) isPayload()      {}
func (TurnFailed) isPayload()         {}
func (QueueSnapshot) isPayload()      {}
func (QueueEnqueued) isPayload()      {}
func (QueueUpdated) isPayload()       {}
func (QueueMoved) isPayload()         {}
func (QueueRemoved) isPayload()       {}
func (QueueDequeued) isPayload()      {}
func (SessionPaused) isPayload()      {}
func (SessionCleared) isPayload()     {}
func (SessionClosed) isPayload()      {}
func (SessionRenamed) isPayload()     {}
func (SessionRestored) isPayload()    {}
func (TurnSteered) isPayload()        {}
func (SessionConfigured) isPayload()  {}

// eventTooLarge means an event exceeds what one server frame may carry.
type eventTooLarge struct {
	payload Payload
	size    int
	limit   int
}

func (e *eventTooLarge) Error() string {
	return fmt.Sprintf("a %T event of %d bytes exceeds the server frame limit of %d bytes", e.payload, e.size, e.limit)
}

// emitLocked numbers, records and fans out one event. s.mu must be held.
// An event whose JSON would not fit in a server frame is refused before it
// takes a seq, so no door ever has to drop one. So is an event whose
// record cannot be stored (a full disk: store_failed; the file at its
// bound: session_too_large): nobody sees it, and the caller undoes the
// change it announces (see undoOnRefusal).
func (s *Session) emitLocked(p Payload) error { return s.emitAsLocked(p, false) }

// announceLocked emits an event that must go out even when its record
// cannot be stored yet (a turn's end, a restore, a close): the log keeps
// the record and writes it with its next successful sync.
func (s *Session) announceLocked(p Payload) { _ = s.emitAsLocked(p, true) }

// undoOnRefusal emits p, the event of a change the caller has made, and
// calls undo when the event is refused, so a change that could not be
// stored is not kept either.
func (s *Session) undoOnRefusal(p Payload, undo func()) error {
	err := s.emitLocked(p)
	if err != nil {
		undo()
	}
	return err
}

func (s *Session) emitAsLocked(p Payload, must bool) error {
	// A stored event's record holds the same JSON that is measured.
	data, size := measurePayload(p)
	if size+frameOverheadBytes+len(s.id) > s.limits.MaxServerFrameBytes {
		return &eventTooLarge{payload: p, size: size, limit: s.limits.MaxServerFrameBytes}
	}
	if s.seq >= store.MaxSeq {
		return errorf(CodeSessionTooLarge, "session %s has used every seq (store.MaxSeq); fork it to go on", s.id)
	}
	ev := Event{SessionID: s.id, Seq: s.seq + 1, Payload: p, size: size, json: data}
	// Stored (and at the durable points synced) before any client sees it.
	if err := s.persistLocked(ev, data, must); err != nil && !must {
		return err
	}
	s.seq++
	ev.memo = s.memos.next()
	for _, sub := range s.subList {
		sub.Deliver(ev)
	}
	// Into the ring after delivery, so that it is charged for the
	// encodings the doors made of it.
	s.ring.push(ev)
	return nil
}

// subscribeLocked adds sub to the session's subscribers. Delivery ranges
// over subList, a slice beside the map: ranging over a map costs as much
// as the rest of a delta's way to a connection.
func (s *Session) subscribeLocked(sub Subscriber) {
	if _, ok := s.subs[sub]; !ok {
		s.subs[sub] = struct{}{}
		s.subList = append(s.subList, sub)
	}
}

func (s *Session) unsubscribeLocked(sub Subscriber) {
	delete(s.subs, sub)
	s.subList = slices.DeleteFunc(s.subList, func(x Subscriber) bool { return x == sub })
}

// measurePayload returns the JSON of an event's members and its size.
// Deltas (of the answer and of the reasoning), the streaming hot path,
// are measured without encoding them, so their JSON is nil; every other
// event is encoded once, here (a stored event's record holds this JSON).
func measurePayload(p Payload) ([]byte, int) {
	switch d := p.(type) {
	case AssistantDelta:
		return nil, 24 + jsonStringLen(d.TurnID) + jsonStringLen(d.Content)
	case AssistantReasoning:
		return nil, 24 + jsonStringLen(d.TurnID) + jsonStringLen(d.Content)
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, 0
	}
	return b, len(b)
}

// PayloadJSON returns the JSON object of the event's members, reusing
// the encoding made when the event was measured.
func (e Event) PayloadJSON() ([]byte, error) {
	if e.json != nil {
		return e.json, nil
	}
	return json.Marshal(e.Payload)
}

// QueueEntry is one waiting prompt.
type QueueEntry struct {
	QueueID   string `json:"queueId"`
	Revision  uint64 `json:"revision"`
	Prompt    string `json:"prompt"`
	Submitter string `json:"submitter"`
	// attachments is the editor context resolved when the prompt was queued.
	attachments resolved
	// files is the file access of the window that queued it (nil: the
	// session's); its turn's file tools use it.
	files tools.FileAccess
}

func (e QueueEntry) bytes() int { return len(e.Prompt) + e.attachments.bytes() }

// Approval is what an approval prompt shows: the members of an approval
// request after its session and seq.
type Approval struct {
	TurnID     string `json:"turnId"`
	ApprovalID string `json:"approvalId"`
	CallID     string `json:"callId"`
	Name       string `json:"name"`
	Risk       string `json:"risk"`
	Cwd        string `json:"cwd"`
	Summary    string `json:"summary"`
	// SuggestedRule is the [approvals] allow rule that would let calls
	// like this one run without asking ("shell:go test *"); empty when no
	// rule fits (a command holding shell syntax).
	SuggestedRule string `json:"suggestedRule,omitempty"`
	// Notice says why a rule of the user's file that covers this call is
	// not applied: it appeared while a tool call ran, and waits for the
	// user's confirmation (see config.RuleLedgerName). It names the rule
	// and the file.
	Notice string `json:"notice,omitempty"`
	// ConfirmsRule says SuggestedRule is the rule Notice names, so
	// answering with it as the allow rule confirms that rule; a UI says
	// so on its "Always allow". False when the held rule is not offered
	// (it would allow any command).
	ConfirmsRule bool `json:"confirmsRule,omitempty"`
}

// ApprovalRequest is an open approval as a Snapshot lists it.
type ApprovalRequest struct {
	SessionID string `json:"sessionId"`
	Seq       uint64 `json:"seq"`
	Approval
}
