package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"scv/lsp/client"
	"scv/lsp/schema"
	"scv/runtime/session"
)

// ErrLagged means the server dropped part of the replay.
var ErrLagged = errors.New("the server could not send the whole transcript in one go (the connection fell behind); try again")

// Fetch attaches to session id with a full replay, collects the replayed
// events and detaches. The detach's reply is the end marker: the server
// sends a connection's replay before it answers that connection's next
// request, so by then every replayed event has arrived. Events newer than
// the snapshot (live ones) are left out.
func Fetch(ctx context.Context, c *Conn, id string) (Transcript, error) {
	var snap schema.Snapshot
	// Replay "full" from a server that stores sessions, the ring after
	// seq 0 from one that does not.
	err := c.Call(ctx, schema.MethodSessionAttach, schema.SessionAttachParams{SessionID: id, AfterSeq: schema.Ptr[uint64](0), Replay: schema.ReplayFull}, &snap)
	if err != nil {
		return Transcript{}, explain(err, id)
	}
	if err := c.Call(ctx, schema.MethodSessionDetach, schema.SessionRef{SessionID: id}, nil); err != nil {
		return Transcript{}, explain(err, id)
	}
	t := Transcript{SessionID: snap.SessionID, Cwd: snap.Cwd, Model: snap.Model}
	for _, n := range c.take() {
		switch n.Method {
		case schema.EvSessionLagged:
			return Transcript{}, ErrLagged
		case schema.EvSessionGap:
			var p schema.SessionGapParams
			if json.Unmarshal(n.Params, &p) == nil && p.SessionID == id {
				t.GapFrom = p.FirstAvailableSeq
			}
			continue
		}
		ev, ok, err := Decode(n)
		if err != nil {
			return Transcript{}, err
		}
		if ok && ev.SessionID == id && ev.Seq <= snap.Seq {
			t.Events = appendEvent(t.Events, ev)
		}
	}
	return t, nil
}

// Event is one session event the transcript shows: Payload is one of
// session's event types (TurnStarted, AssistantCompleted, ToolProposed,
// ToolCompleted, ApprovalRequested, ApprovalResolved, ContextCompacted,
// TurnCompleted, TurnCancelled, TurnFailed, SessionCleared,
// AssistantReasoning, PlanUpdated) or Renamed, Restored or Assistant.
type Event struct {
	SessionID string
	Seq       uint64
	Payload   any
}

// Assistant is assistant/completed with the mark a stored session puts on
// an answer cut off by a cancel or a shutdown.
type Assistant struct {
	session.AssistantCompleted
	Interrupted bool `json:"interrupted,omitempty"`
}

// Renamed is scv/session/renamed.
type Renamed struct {
	Title string `json:"title"`
}

// Restored is scv/session/restored: what a restart interrupted.
type Restored struct {
	InterruptedTurnID  string   `json:"interruptedTurnId,omitempty"`
	CancelledApprovals []string `json:"cancelledApprovals,omitempty"`
	Queued             int      `json:"queued"`
	Paused             bool     `json:"paused"`
}

// shown maps each notification the transcript shows to the decoder of its
// payload; the rest (deltas, queue edits, tool starts) are skipped.
var shown = map[string]func(json.RawMessage) (any, error){
	schema.EvTurnStarted:        as[session.TurnStarted],
	schema.EvAssistantCompleted: as[Assistant],
	schema.EvToolProposed:       as[session.ToolProposed],
	schema.EvToolCompleted:      as[session.ToolCompleted],
	schema.EvApprovalRequested:  as[session.ApprovalRequested],
	schema.EvApprovalResolved:   as[session.ApprovalResolved],
	schema.EvContextCompacted:   as[session.ContextCompacted],
	schema.EvTurnCompleted:      as[session.TurnCompleted],
	schema.EvTurnCancelled:      as[session.TurnCancelled],
	schema.EvTurnFailed:         as[session.TurnFailed],
	schema.EvSessionCleared:     as[session.SessionCleared],
	schema.EvSessionRenamed:     as[Renamed],
	schema.EvSessionRestored:    as[Restored],
	schema.EvAssistantReasoning: as[session.AssistantReasoning],
	schema.EvPlanUpdated:        as[session.PlanUpdated],
	schema.EvTurnChanges:        as[session.TurnChanges],
	schema.EvTurnReverted:       as[session.TurnReverted],
}

func as[T any](raw json.RawMessage) (any, error) {
	var v T
	err := json.Unmarshal(raw, &v)
	return v, err
}

// Decode turns a notification into an Event; ok is false for one the
// transcript does not show.
func Decode(n client.Notification) (ev Event, ok bool, err error) {
	decode := shown[n.Method]
	if decode == nil {
		return Event{}, false, nil
	}
	var head schema.EventHeader
	if err := json.Unmarshal(n.Params, &head); err != nil {
		return Event{}, false, fmt.Errorf("decode %s: %w", n.Method, err)
	}
	payload, err := decode(n.Params)
	if err != nil {
		return Event{}, false, fmt.Errorf("decode %s: %w", n.Method, err)
	}
	return Event{SessionID: head.SessionID, Seq: head.Seq, Payload: payload}, true, nil
}
