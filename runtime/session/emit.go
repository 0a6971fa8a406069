package session

import (
	"encoding/json"
	"fmt"
	"slices"

	"scv/runtime/store"
)

// How an event goes out: measured against the frame limit, numbered,
// stored, delivered to the subscribers and kept in the replay ring.

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
	// The last seqHeadroom seqs are kept for the events that must go
	// out, as a reservation keeps them (persistLocked).
	last := uint64(store.MaxSeq)
	if !must {
		last -= seqHeadroom
	}
	if s.seq >= last {
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
