package session

import (
	"encoding/json"

	"fmt"
	jsonv1 "github.com/go-json-experiment/json/v1"
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
	// decode reads a record's data into its event and extras in one pass.
	decode func([]byte) (Payload, recordExtras, error)
}

// extrasFields are recordExtras' fields, which every record type's
// decoding struct carries beside its event.
var extrasFields = reflect.VisibleFields(reflect.TypeFor[recordExtras]())

// kindFor describes event type T. A record's data is T's members followed
// by the extras in one object (recordData), so it is decoded once into a
// struct built here that embeds T and adds the extras' fields: one
// json.Unmarshal per record instead of one for the event and another for
// the extras (loading a long session spends most of its time there). It
// is decoded by go-json-experiment's implementation of encoding/json's
// rules (json/v1): the same results, in one pass over the bytes where
// encoding/json makes two (a validation, then the decoding), which makes
// loading a session about a third faster.
func kindFor[T Payload](name string, sync, meta bool) (reflect.Type, recordKind) {
	t := reflect.TypeFor[T]()
	fields := []reflect.StructField{{Name: t.Name(), Type: t, Anonymous: true}}
	for _, f := range extrasFields {
		fields = append(fields, reflect.StructField{Name: f.Name, Type: f.Type, Tag: f.Tag})
	}
	both := reflect.StructOf(fields)
	return t, recordKind{name: name, sync: sync, meta: meta, decode: func(data []byte) (Payload, recordExtras, error) {
		var x recordExtras
		v := reflect.New(both)
		if err := jsonv1.Unmarshal(data, v.Interface()); err != nil {
			return nil, x, err
		}
		v = v.Elem()
		xv := reflect.ValueOf(&x).Elem()
		for i, f := range extrasFields {
			xv.FieldByIndex(f.Index).Set(v.Field(i + 1))
		}
		return v.Field(0).Interface().(T), x, nil
	}}
}

// recordKinds lists every stored event type. AssistantDelta (the stream,
// summed up by assistant.completed), AssistantReasoning (kept whole in
// recordExtras.Reasoning), ToolOutput (summed up by tool.completed) and
// SessionClosed (an unload, not a change of the session) are not stored.
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
	add(kindFor[TurnSteered]("turn.steered", true, false))
	add(kindFor[SessionConfigured]("session.configured", true, true))
	add(kindFor[PlanUpdated]("plan.updated", false, false))
	add(kindFor[SessionUsage]("session.usage", false, false))
	add(kindFor[TurnChanges]("turn.changes", false, false))
	add(kindFor[TurnReverted]("turn.reverted", true, false))
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
	// Reasoning is the reasoning streamed since the previous record, one
	// entry per turn, replayed as one AssistantReasoning event each.
	Reasoning []storedReasoning `json:"reasoning,omitempty"`
}

// storedReasoning is a run of reasoning deltas of one turn: their text
// and the seq of the last, which its replayed event takes.
type storedReasoning struct {
	TurnID  string `json:"turnId"`
	Content string `json:"content"`
	Seq     uint64 `json:"seq"`
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
	if x.History == nil && x.Attachments == nil && x.SeqReserve == 0 && x.Reasoning == nil {
		return payload, nil
	}
	extra, err := json.Marshal(x)
	if err != nil {
		return nil, err
	}
	if len(extra) <= 2 { // {}: empty extras (an empty, non-nil History)
		return payload, nil
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
	size    int     // the record's data size
	payload Payload // nil for a record that is not an event
	extras  recordExtras
	err     error // the record could not be decoded
}

// decodeRecord reads a record back into its event and extras: the one
// decoder for both loading a session and replaying its file.
func decodeRecord(rec store.Record) decoded {
	d := decoded{seq: rec.Seq, size: len(rec.Data)}
	if rec.Type == recordSeqReserve {
		var r seqReserve
		if err := json.Unmarshal(rec.Data, &r); err != nil {
			d.err = fmt.Errorf("record %d (%s): %w", rec.Seq, rec.Type, err)
		}
		d.extras.SeqReserve = r.UpTo
		return d
	}
	k, ok := recordDecoders[rec.Type]
	if !ok {
		d.err = fmt.Errorf("record %d: unknown type %q", rec.Seq, rec.Type)
		return d
	}
	p, x, err := k.decode(rec.Data)
	if err != nil {
		d.err = fmt.Errorf("record %d (%s): %w", rec.Seq, rec.Type, err)
		return d
	}
	if q, ok := p.(QueueEnqueued); ok && x.Attachments != nil {
		q.Entry.attachments = resolved{text: x.Attachments.Text, refs: x.Attachments.Context}
		p = q
	}
	d.payload, d.extras = p, x
	return d
}

// decodeRecords decodes each record once; loading a session rebuilds its
// state and keeps its transcript from the same decoded records.
func decodeRecords(recs []store.Record) []decoded {
	ds := make([]decoded, len(recs))
	for i, rec := range recs {
		ds[i] = decodeRecord(rec)
	}
	return ds
}

// storedEvents are the events of decoded records, oldest first; records
// that are not events or could not be decoded are left out.
func storedEvents(sessionID string, ds []decoded) []Event {
	events := make([]Event, 0, len(ds))
	for _, d := range ds {
		if d.err != nil {
			continue
		}
		for _, r := range d.extras.Reasoning {
			events = append(events, Event{SessionID: sessionID, Seq: r.Seq, Payload: AssistantReasoning{r.TurnID, r.Content}, size: reasoningSize(r), memo: &memo{}})
		}
		if d.payload != nil {
			events = append(events, Event{SessionID: sessionID, Seq: d.seq, Payload: d.payload, size: d.size, memo: &memo{}})
		}
	}
	return events
}

// StoredEvents decodes a session's records into its stored events, oldest
// first, skipping the records that are not events. Records that cannot be
// decoded are skipped and returned as problems.
func StoredEvents(sessionID string, recs []store.Record) ([]Event, []error) {
	ds := decodeRecords(recs)
	var problems []error
	for _, d := range ds {
		if d.err != nil {
			problems = append(problems, d.err)
		}
	}
	return storedEvents(sessionID, ds), problems
}

// reasoningSize is the size of a replayed reasoning event's members.
func reasoningSize(r storedReasoning) int {
	_, size := measurePayload(AssistantReasoning{r.TurnID, r.Content})
	return size
}
