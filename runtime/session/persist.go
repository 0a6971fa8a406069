package session

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"scv/runtime/provider"
	"scv/runtime/store"
)

// disk is a session's place in the store: the open log it alone writes
// and what it has not written yet. Its fields are guarded by the
// session's mutex. The zero disk keeps the session in memory only.
type disk struct {
	store *store.Store
	log   *store.Log
	// pending are the history messages added since the last record; the
	// next record carries them (recordExtras.History).
	pending []provider.Message
	// reserved is the highest seq a durable seq.reserve allows. A stream
	// reserves the next block ahead, half a block before it needs it,
	// and syncs that off the hot path (reserving); an event that would
	// pass a reservation not yet durable syncs one itself.
	reserved  atomic.Uint64
	reserving atomic.Bool
	syncs     sync.WaitGroup
	// dirty: records were appended since the last sync.
	dirty bool
	// reasoning is the reasoning streamed since the last record; the next
	// record carries it (recordExtras.Reasoning).
	reasoning []pendingReasoning
	// loaded is the transcript decoded at load, kept for the first full
	// replay (see keepLoadedLocked).
	loaded *loadedTranscript
	// failing is set while the log's writes fail (logged once, when it
	// begins, and again when they succeed again).
	failing bool
	// metaStale: the sidecar could not be written; the next record that
	// is stored writes it again.
	metaStale bool
	// toldFull: a turn's end said the file is past logFullPercent of its
	// bound (said once per session; a reload reads it from the records).
	toldFull bool
}

// addHistoryLocked appends m to the model's history and to what the next
// record stores, so a load rebuilds the same history.
func (s *Session) addHistoryLocked(m provider.Message) {
	s.history = append(s.history, m)
	if s.disk.log != nil {
		s.disk.pending = append(s.disk.pending, m)
	}
}

// takeBackHistoryLocked removes the message addHistoryLocked added last,
// whose event was refused: it is neither kept nor stored.
func (s *Session) takeBackHistoryLocked() {
	s.history = s.history[:len(s.history)-1]
	if n := len(s.disk.pending); n > 1 {
		s.disk.pending = s.disk.pending[:n-1]
	} else {
		s.disk.pending = nil
	}
}

// persistLocked appends ev's record to the session's log. Records are
// buffered; turn ends, queue changes, approval decisions, pause, clear,
// rename, restore, turn starts and seq reservations are synced (fsync)
// before the event reaches any client, so an answered request of that
// kind survives a crash. s.mu must be held.
//
// When the record cannot be stored, persistLocked returns the refusal
// (store_failed, or session_too_large) and, unless must is set, keeps
// nothing of it, so the event can be refused: no seq is taken and the
// caller undoes its change. An event that must go out whatever the disk
// says (must: a turn's end, a restore) is delivered anyway; its record
// stays buffered in the log, which writes it with the next sync that
// succeeds.
func (s *Session) persistLocked(ev Event, data []byte, must bool) error {
	d := &s.disk
	if d.log == nil {
		if d.store != nil && !must {
			// Shutdown closed the log while the session still takes
			// requests: a change now would be answered and lost.
			return errorf(CodeStoreFailed, "session %s's file is closed (the server is stopping), so the change was not made", s.id)
		}
		return nil
	}
	// A refusable event keeps seqHeadroom seqs of the reservation free
	// for the events that must go out, so that even on a full disk no
	// client sees a seq above the durable reservation.
	need := ev.Seq
	if !must {
		need += seqHeadroom
	}
	var reserve uint64
	if need > d.reserved.Load() {
		reserve = reservationFrom(ev.Seq)
	}
	if isDelta(ev.Payload) && reserve == 0 {
		s.reserveAheadLocked(ev.Seq)
		d.addReasoningOf(ev)
		return nil // the hot path: deltas are not stored
	}
	kind, stored := recordKinds[reflect.TypeOf(ev.Payload)]
	if !stored && reserve == 0 {
		return nil
	}
	rec := store.Record{Seq: ev.Seq, Type: kind.name, At: s.clock()}
	var x recordExtras
	if !stored {
		// An event that is not stored passed the reservation: the
		// reservation takes its seq.
		rec.Type = recordSeqReserve
		rec.Data, _ = json.Marshal(seqReserve{UpTo: reserve})
	} else {
		if reserve == 0 && kind.sync && ev.Seq+SeqReserveBlock/2 > d.reserved.Load() {
			reserve = reservationFrom(ev.Seq) // this sync carries it for free
		}
		x = recordExtras{History: d.pending, SeqReserve: reserve, Reasoning: d.takeReasoning()}
		if q, ok := ev.Payload.(QueueEnqueued); ok && (q.Entry.attachments.text != "" || len(q.Entry.attachments.refs) > 0) {
			x.Attachments = &storedAttachments{Text: q.Entry.attachments.text, Context: q.Entry.attachments.refs}
		}
		var err error
		if rec.Data, err = recordData(data, x); err != nil {
			d.giveBackReasoning(x.Reasoning)
			return s.storeFailedLocked(ev, err)
		}
	}
	syncs := !stored || kind.sync || reserve != 0
	var err error
	switch {
	case syncs && !must:
		err = d.log.Commit(rec)
	case syncs:
		if err = d.log.Append(rec); err == nil {
			err = d.log.Sync()
		}
	default:
		err = d.log.Append(rec)
	}
	if err != nil && (!must || errors.Is(err, store.ErrTooLarge) || d.log.LastSeq() < rec.Seq) {
		// Not kept: the history and reasoning it carried wait for the
		// next record.
		d.giveBackReasoning(x.Reasoning)
		return s.storeFailedLocked(ev, err)
	}
	if stored {
		d.pending = nil // the record carries them
	} else {
		d.addReasoningOf(ev)
	}
	d.dirty = !syncs || err != nil
	if err != nil {
		_ = s.storeFailedLocked(ev, err) // kept buffered; logged
		return nil
	}
	if reserve != 0 && reserve > d.reserved.Load() {
		d.reserved.Store(reserve)
	}
	if syncs {
		s.storedLocked() // written, so the disk has room again
	}
	if kind.meta || d.metaStale {
		s.writeMetaLocked()
	}
	return nil
}

// reservationFrom is the reservation an event at seq takes: a block from
// it, but never past store.MaxSeq, which a load would skip as damage.
func reservationFrom(seq uint64) uint64 {
	return min(seq-1+SeqReserveBlock, store.MaxSeq)
}

// isDelta reports the streamed events, which are not stored one by one.
func isDelta(p Payload) bool {
	switch p.(type) {
	case AssistantDelta, AssistantReasoning:
		return true
	}
	return false
}

// pendingReasoning is a run of one turn's reasoning deltas not stored yet.
type pendingReasoning struct {
	turnID string
	text   *strings.Builder
	seq    uint64 // the last delta's
}

// addReasoning joins a reasoning delta to the run the next record stores.
func (d *disk) addReasoning(r AssistantReasoning, seq uint64) {
	n := len(d.reasoning)
	if n == 0 || d.reasoning[n-1].turnID != r.TurnID {
		d.reasoning = append(d.reasoning, pendingReasoning{turnID: r.TurnID, text: &strings.Builder{}})
		n++
	}
	run := &d.reasoning[n-1]
	run.text.WriteString(r.Content)
	run.seq = seq
}

// addReasoningOf joins ev's reasoning, if it is a reasoning delta, to
// what the next record stores.
func (d *disk) addReasoningOf(ev Event) {
	if r, ok := ev.Payload.(AssistantReasoning); ok {
		d.addReasoning(r, ev.Seq)
	}
}

// giveBackReasoning puts runs a record could not store back in front of
// those pending, for the next record.
func (d *disk) giveBackReasoning(runs []storedReasoning) {
	if len(runs) == 0 {
		return
	}
	back := make([]pendingReasoning, 0, len(runs)+len(d.reasoning))
	for _, r := range runs {
		b := &strings.Builder{}
		b.WriteString(r.Content)
		back = append(back, pendingReasoning{turnID: r.TurnID, text: b, seq: r.Seq})
	}
	d.reasoning = append(back, d.reasoning...)
}

// takeReasoning returns the pending runs for a record and forgets them.
func (d *disk) takeReasoning() []storedReasoning {
	if len(d.reasoning) == 0 {
		return nil
	}
	out := make([]storedReasoning, len(d.reasoning))
	for i, r := range d.reasoning {
		out[i] = storedReasoning{TurnID: r.turnID, Content: r.text.String(), Seq: r.seq}
	}
	d.reasoning = nil
	return out
}

// reserveAheadLocked reserves the next block of seqs once a stream is
// half-way through the current one: the record is appended with the
// delta's seq now and synced by a goroutine the disk owns, so the stream
// never waits for the disk unless it outruns the sync by half a block.
func (s *Session) reserveAheadLocked(seq uint64) {
	d := &s.disk
	current := d.reserved.Load()
	if seq+SeqReserveBlock/2 <= current || current >= store.MaxSeq || !d.reserving.CompareAndSwap(false, true) {
		return
	}
	upTo := min(current+SeqReserveBlock, store.MaxSeq)
	data, _ := json.Marshal(seqReserve{UpTo: upTo})
	if err := d.log.Append(store.Record{Seq: seq, Type: recordSeqReserve, At: s.clock(), Data: data}); err != nil {
		d.reserving.Store(false)
		_ = s.storeFailedLocked(Event{Seq: seq}, err)
		return
	}
	log := d.log
	d.syncs.Add(1)
	go func() {
		defer d.syncs.Done()
		defer d.reserving.Store(false)
		if err := log.Sync(); err != nil {
			s.logger().Error("a seq reservation could not be synced", "session", s.id, "err", err)
			return
		}
		d.reserved.Store(upTo)
	}()
}

// syncDiskLocked makes every appended record durable (attach with a full
// replay reads the file).
func (s *Session) syncDiskLocked() {
	if s.disk.log != nil && s.disk.dirty {
		s.disk.dirty = false
		if err := s.disk.log.Sync(); err != nil {
			s.disk.dirty = true
			_ = s.storeFailedLocked(Event{}, err)
		} else {
			s.storedLocked()
		}
	}
}

// closeDiskLocked syncs and closes the log, releasing the session's
// writer lock: another process may load it from now on.
func (s *Session) closeDiskLocked() {
	if s.disk.log == nil {
		return
	}
	// A reservation's sync runs first: after Close it could only fail
	// (log closed) and report an error for a record Close had synced.
	s.disk.syncs.Wait()
	if s.disk.metaStale {
		s.writeMetaLocked() // the last chance before a listing reads it
	}
	if err := s.disk.log.Close(); err != nil {
		s.logger().Error("the session's last records could not be written to its file when it closed; they are lost",
			"session", s.id, "err", err)
	}
	s.disk.log = nil
}

func (s *Session) clock() time.Time {
	if s.now != nil {
		return s.now()
	}
	return time.Now()
}
