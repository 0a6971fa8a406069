package lsptest

import (
	"encoding/json"
	"fmt"
	"strings"

	"scv/lsp/schema"
)

// Note is one notification the editor received.
type Note struct {
	Index  int // arrival order on this connection, from 0
	Method string
	Params json.RawMessage
	// Decoded from Params when present.
	SessionID string
	Seq       uint64
	HasSeq    bool
	TurnID    string
}

func newNote(index int, method string, params json.RawMessage) Note {
	n := Note{Index: index, Method: method, Params: params}
	var head struct {
		SessionID string  `json:"sessionId"`
		Seq       *uint64 `json:"seq"`
		TurnID    string  `json:"turnId"`
	}
	if json.Unmarshal(params, &head) == nil {
		n.SessionID, n.TurnID = head.SessionID, head.TurnID
		if head.Seq != nil {
			n.Seq, n.HasSeq = *head.Seq, true
		}
	}
	return n
}

// Decode unmarshals the params into v.
func (n Note) Decode(v any) error {
	if err := json.Unmarshal(n.Params, v); err != nil {
		return fmt.Errorf("decode %s params %s: %w", n.Method, n.Params, err)
	}
	return nil
}

// Str returns a top-level string member of the params ("" when absent).
func (n Note) Str(name string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(n.Params, &m) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(m[name], &s) != nil {
		return ""
	}
	return s
}

func (n Note) String() string {
	p := string(n.Params)
	if len(p) > 300 {
		p = p[:300] + "…"
	}
	return fmt.Sprintf("#%d %s %s", n.Index, n.Method, p)
}

// IsTerminal reports whether method ends a turn.
func IsTerminal(method string) bool {
	return schema.IsTerminal(method)
}

// Predicates for AwaitNotification; nil matches everything.

// ForSession matches notifications of one session.
func ForSession(id string) func(Note) bool {
	return func(n Note) bool { return n.SessionID == id }
}

// ForTurn matches notifications of one turn.
func ForTurn(id string) func(Note) bool {
	return func(n Note) bool { return n.TurnID == id }
}

// WithStr matches notifications whose params member name is value.
func WithStr(name, value string) func(Note) bool {
	return func(n Note) bool { return n.Str(name) == value }
}

// All matches when every predicate does.
func All(preds ...func(Note) bool) func(Note) bool {
	return func(n Note) bool {
		for _, p := range preds {
			if p != nil && !p(n) {
				return false
			}
		}
		return true
	}
}

// invariants checks, on every arrival, what must hold for any stream of
// events: per session, seq goes up by exactly one (within a segment that an
// attach restarts); per turn, at most one terminal event and nothing after
// it. Violations are collected and reported by the Editor.
type invariants struct {
	lastSeq map[string]uint64 // sessionId → last seq seen in the current segment
	// holes: sessionId → the segment is a full replay, whose stored events
	// skip the seqs of the deltas, which are not stored: seq only rises.
	holes      map[string]bool
	terminated map[string]Note   // turnId → its terminal event
	changed    map[string]bool   // turnId → its changes arrived
	started    map[string]bool   // turnId → its turn/started was seen
	pending    map[string]string // turnId → sessionId: changes announced, not yet arrived
	violations []string
}

func newInvariants() *invariants {
	return &invariants{lastSeq: map[string]uint64{}, holes: map[string]bool{}, terminated: map[string]Note{}, changed: map[string]bool{},
		started: map[string]bool{}, pending: map[string]string{}}
}

// restart begins a new segment for a session: an attach may replay events
// this connection has seen already.
func (v *invariants) restart(sessionID string) {
	delete(v.lastSeq, sessionID)
	delete(v.holes, sessionID)
	v.forgetPending(sessionID)
	for turn, n := range v.terminated {
		if n.SessionID == sessionID {
			delete(v.terminated, turn)
			delete(v.changed, turn)
			delete(v.started, turn)
		}
	}
}

func (v *invariants) observe(n Note) {
	if n.Method == schema.EvSessionLagged {
		// The connection lost exactly that many events: the next one
		// delivered continues after them.
		var lag struct {
			Missed uint64 `json:"missed"`
		}
		if _, ok := v.lastSeq[n.SessionID]; ok && n.Decode(&lag) == nil {
			v.lastSeq[n.SessionID] += lag.Missed
		}
		v.forgetPending(n.SessionID) // the changes may be among the lost
		return
	}
	if n.HasSeq && n.SessionID != "" {
		if last, ok := v.lastSeq[n.SessionID]; ok && n.Seq != last+1 && !(v.holes[n.SessionID] && n.Seq > last) {
			v.violations = append(v.violations, fmt.Sprintf("session %s: seq %d after %d (want %d) at %s", n.SessionID, n.Seq, last, last+1, n))
		}
		v.lastSeq[n.SessionID] = n.Seq
	}
	if n.Method == schema.EvSessionClosed {
		// A session stores a turn's changes before it closes.
		for turn, sid := range v.pending {
			if sid == n.SessionID {
				v.violations = append(v.violations, fmt.Sprintf("turn %s: its terminal event announced changes that never came before %s", turn, n))
			}
		}
		v.forgetPending(n.SessionID)
		// A reload starts a new stream, its seqs after a reserved block; the
		// closed event may arrive after the test already attached again.
		delete(v.lastSeq, n.SessionID)
		return
	}
	// turn/reverted names turns that ended long ago: it is the session's
	// event about them, not one of theirs. turn/changes follows the
	// terminal event that said changesPending.
	if n.TurnID == "" || !strings.HasPrefix(n.Method, schema.Namespace) || n.Method == schema.EvTurnReverted {
		return
	}
	if n.Method == schema.EvTurnChanges {
		v.changes(n)
		return
	}
	if prev, done := v.terminated[n.TurnID]; done {
		v.violations = append(v.violations, fmt.Sprintf("turn %s: %s after its terminal %s", n.TurnID, n, prev))
		return
	}
	if n.Method == schema.EvTurnStarted {
		v.started[n.TurnID] = true
	}
	if IsTerminal(n.Method) {
		v.terminated[n.TurnID] = n
		var end struct {
			ChangesPending bool `json:"changesPending"`
		}
		if n.Decode(&end) == nil && end.ChangesPending {
			v.pending[n.TurnID] = n.SessionID
		}
	}
}

func (v *invariants) forgetPending(sessionID string) {
	for turn, sid := range v.pending {
		if sid == sessionID {
			delete(v.pending, turn)
		}
	}
}

// changes checks a turn's scv/turn/changes: one, after a terminal event
// that announced it. Without that terminal event in view (an attach may
// replay from between the two) there is nothing to hold it to.
func (v *invariants) changes(n Note) {
	end, ended := v.terminated[n.TurnID]
	var pending struct {
		ChangesPending bool `json:"changesPending"`
	}
	delete(v.pending, n.TurnID)
	switch {
	case !ended && v.started[n.TurnID]:
		v.violations = append(v.violations, fmt.Sprintf("turn %s: %s before its terminal event", n.TurnID, n))
	case !ended:
	case end.Decode(&pending) != nil || !pending.ChangesPending:
		v.violations = append(v.violations, fmt.Sprintf("turn %s: %s after a terminal %s that did not announce it", n.TurnID, n, end))
	case v.changed[n.TurnID]:
		v.violations = append(v.violations, fmt.Sprintf("turn %s: a second %s", n.TurnID, n))
	}
	v.changed[n.TurnID] = true
}
