package session

import (
	"encoding/json"
	"fmt"
	"reflect"

	"scv/runtime/provider"
	"scv/runtime/store"
)

// SeqReserveBlock is how many seqs one seq.reserve record reserves. A
// session never emits a seq above its last durable reservation, so after
// a crash it resumes above every seq a client may have seen, even of
// events that were not stored (deltas).
const SeqReserveBlock = 4096

// Record types that are not events.
const (
	// recordSeqReserve reserves seqs up to data.upTo. It takes the seq of
	// an event that is not stored (a delta) whose emission needed it.
	recordSeqReserve = "seq.reserve"
)

// recordKind says how one event type is stored.
type recordKind struct {
	name string // the record's type: stable, independent of any wire
	// sync: the record is made durable (fsync) before the event is
	// delivered; meta: the sidecar (title, turns, queued) is rewritten.
	sync, meta bool
	decode     func([]byte) (Payload, error)
}

func kindFor[T Payload](name string, sync, meta bool) (reflect.Type, recordKind) {
	var zero T
	return reflect.TypeOf(zero), recordKind{name: name, sync: sync, meta: meta, decode: func(data []byte) (Payload, error) {
		var v T
		err := json.Unmarshal(data, &v)
		return v, err
	}}
}

// recordKinds lists every stored event type. AssistantDelta (the stream,
// summed up by assistant.completed) and SessionClosed (an unload, not a
// change of the session) are not stored.
var recordKinds, recordDecoders = func() (map[reflect.Type]recordKind, map[string]recordKind) {
	byType := map[reflect.Type]recordKind{}
	byName := map[string]recordKind{}
	add := func(t reflect.Type, k recordKind) {
		byType[t] = k
		byName[k.name] = k
	}
	add(kindFor[TurnStarted]("turn.started", true, true))
	add(kindFor[AssistantCompleted]("assistant.completed", false, false))
	add(kindFor[ToolProposed]("tool.proposed", false, false))
	add(kindFor[ToolStarted]("tool.started", false, false))
	add(kindFor[ToolCompleted]("tool.completed", false, false))
	add(kindFor[ApprovalRequested]("approval.requested", false, false))
	add(kindFor[ApprovalResolved]("approval.resolved", true, false))
	add(kindFor[ContextCompacted]("context.compacted", false, false))
	add(kindFor[TurnCompleted]("turn.completed", true, true))
	add(kindFor[TurnCancelled]("turn.cancelled", true, true))
	add(kindFor[TurnFailed]("turn.failed", true, true))
	add(kindFor[QueueSnapshot]("queue.snapshot", true, true))
	add(kindFor[QueueEnqueued]("queue.enqueued", true, true))
	add(kindFor[QueueUpdated]("queue.updated", true, false))
	add(kindFor[QueueMoved]("queue.moved", true, false))
	add(kindFor[QueueRemoved]("queue.removed", true, true))
	add(kindFor[QueueDequeued]("queue.dequeued", true, true))
	add(kindFor[SessionPaused]("session.paused", true, false))
	add(kindFor[SessionCleared]("session.cleared", true, true))
	add(kindFor[SessionRenamed]("session.renamed", true, true))
	add(kindFor[SessionRestored]("session.restored", true, true))
	return byType, byName
}()

// RecordType is the stored record type of an event payload, and false for
// the payloads that are not stored.
func RecordType(p Payload) (string, bool) {
	k, ok := recordKinds[reflect.TypeOf(p)]
	return k.name, ok
}

// recordExtras are the members a record carries besides its event's: what
// rebuilding the session needs and the event does not say.
type recordExtras struct {
	// History are the messages added to the model's history since the
	// previous record, applied before the record's own event.
	History []provider.Message `json:"history,omitempty"`
	// Attachments are a queued prompt's resolved context (queue.enqueued).
	Attachments *storedAttachments `json:"attachments,omitempty"`
	// SeqReserve reserves seqs up to it (see SeqReserveBlock).
	SeqReserve uint64 `json:"seqReserve,omitempty"`
}

type storedAttachments struct {
	Text    string       `json:"text"`
	Context []ContextRef `json:"context,omitempty"`
}

type seqReserve struct {
	UpTo uint64 `json:"upTo"`
}

// recordData is an event's members followed by the extras, one object.
func recordData(payload []byte, x recordExtras) ([]byte, error) {
	if x.History == nil && x.Attachments == nil && x.SeqReserve == 0 {
		return payload, nil
	}
	extra, err := json.Marshal(x)
	if err != nil {
		return nil, err
	}
	if len(payload) <= 2 { // {}
		return extra, nil
	}
	out := make([]byte, 0, len(payload)+len(extra))
	out = append(out, payload[:len(payload)-1]...)
	out = append(out, ',')
	return append(out, extra[1:]...), nil
}

// decoded is one stored record read back.
type decoded struct {
	seq     uint64
	payload Payload // nil for a record that is not an event
	extras  recordExtras
}

// decodeRecord reads a record back into its event and extras: the one
// decoder for both loading a session and replaying its file.
func decodeRecord(rec store.Record) (decoded, error) {
	d := decoded{seq: rec.Seq}
	if rec.Type == recordSeqReserve {
		var r seqReserve
		if err := json.Unmarshal(rec.Data, &r); err != nil {
			return d, fmt.Errorf("record %d (%s): %w", rec.Seq, rec.Type, err)
		}
		d.extras.SeqReserve = r.UpTo
		return d, nil
	}
	k, ok := recordDecoders[rec.Type]
	if !ok {
		return d, fmt.Errorf("record %d: unknown type %q", rec.Seq, rec.Type)
	}
	p, err := k.decode(rec.Data)
	if err == nil {
		err = json.Unmarshal(rec.Data, &d.extras)
	}
	if err != nil {
		return d, fmt.Errorf("record %d (%s): %w", rec.Seq, rec.Type, err)
	}
	if q, ok := p.(QueueEnqueued); ok && d.extras.Attachments != nil {
		q.Entry.attachments = resolved{text: d.extras.Attachments.Text, refs: d.extras.Attachments.Context}
		p = q
	}
	d.payload = p
	return d, nil
}

// StoredEvents decodes a session's records into its stored events, oldest
// first, skipping the records that are not events. Records that cannot be
// decoded are skipped and returned as problems.
func StoredEvents(sessionID string, recs []store.Record) ([]Event, []error) {
	events := make([]Event, 0, len(recs))
	var problems []error
	for _, rec := range recs {
		d, err := decodeRecord(rec)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		if d.payload != nil {
			events = append(events, Event{SessionID: sessionID, Seq: rec.Seq, Payload: d.payload, size: len(rec.Data), memo: &memo{}})
		}
	}
	return events, problems
}
