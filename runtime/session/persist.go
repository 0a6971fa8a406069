package session

import (
	"encoding/json"
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
	// failed is set after the first write error, which is logged once;
	// the session goes on in memory.
	failed bool
}

// addHistoryLocked appends m to the model's history and to what the next
// record stores, so a load rebuilds the same history.
func (s *Session) addHistoryLocked(m provider.Message) {
	s.history = append(s.history, m)
	if s.disk.log != nil {
		s.disk.pending = append(s.disk.pending, m)
	}
}

// persistLocked appends ev's record to the session's log. Records are
// buffered; turn ends, queue changes, approval decisions, pause, clear,
// rename, restore, turn starts and seq reservations are synced (fsync)
// before the event reaches any client, so an answered request of that
// kind survives a crash. s.mu must be held.
func (s *Session) persistLocked(ev Event, data []byte) {
	d := &s.disk
	if d.log == nil {
		return
	}
	var reserve uint64
	if ev.Seq > d.reserved.Load() {
		reserve = ev.Seq - 1 + SeqReserveBlock
	}
	if r, ok := ev.Payload.(AssistantReasoning); ok {
		d.addReasoning(r, ev.Seq)
	}
	if isDelta(ev.Payload) && reserve == 0 {
		s.reserveAheadLocked(ev.Seq)
		return // the hot path: deltas are not stored
	}
	kind, stored := recordKinds[reflect.TypeOf(ev.Payload)]
	var err error
	switch {
	case !stored && reserve == 0:
		return
	case !stored:
		// An event that is not stored passed the reservation: the
		// reservation takes its seq.
		data, _ = json.Marshal(seqReserve{UpTo: reserve})
		err = d.log.Append(store.Record{Seq: ev.Seq, Type: recordSeqReserve, At: s.clock(), Data: data})
		if err == nil {
			err = d.log.Sync()
		}
	default:
		if reserve == 0 && kind.sync && ev.Seq+SeqReserveBlock/2 > d.reserved.Load() {
			reserve = ev.Seq - 1 + SeqReserveBlock // this sync carries it for free
		}
		x := recordExtras{History: d.pending, SeqReserve: reserve, Reasoning: d.takeReasoning()}
		if q, ok := ev.Payload.(QueueEnqueued); ok && (q.Entry.attachments.text != "" || len(q.Entry.attachments.refs) > 0) {
			x.Attachments = &storedAttachments{Text: q.Entry.attachments.text, Context: q.Entry.attachments.refs}
		}
		d.pending = nil
		data, err = recordData(data, x)
		if err == nil {
			err = d.log.Append(store.Record{Seq: ev.Seq, Type: kind.name, At: s.clock(), Data: data})
		}
		d.dirty = true
		if err == nil && (kind.sync || reserve != 0) {
			err = d.log.Sync()
			d.dirty = false
		}
		if err == nil && kind.meta {
			err = d.log.SetMeta(s.metaLocked())
		}
	}
	if err != nil {
		s.diskFailedLocked(err)
		return
	}
	if reserve != 0 && reserve > d.reserved.Load() {
		d.reserved.Store(reserve)
	}
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
	if seq+SeqReserveBlock/2 <= current || !d.reserving.CompareAndSwap(false, true) {
		return
	}
	upTo := current + SeqReserveBlock
	data, _ := json.Marshal(seqReserve{UpTo: upTo})
	if err := d.log.Append(store.Record{Seq: seq, Type: recordSeqReserve, At: s.clock(), Data: data}); err != nil {
		d.reserving.Store(false)
		s.diskFailedLocked(err)
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

func (s *Session) metaLocked() store.Meta {
	return store.Meta{Title: s.title, Turns: s.turnCount, Queued: len(s.queue), Model: s.cfg.Provider.Model}
}

func (s *Session) diskFailedLocked(err error) {
	if s.disk.failed {
		return
	}
	s.disk.failed = true
	s.logger().Error("the session could not be written to its file; it goes on in memory, and what follows may be lost at a restart",
		"session", s.id, "err", err)
}

// syncDiskLocked makes every appended record durable (attach with a full
// replay reads the file).
func (s *Session) syncDiskLocked() {
	if s.disk.log != nil && s.disk.dirty {
		s.disk.dirty = false
		if err := s.disk.log.Sync(); err != nil {
			s.diskFailedLocked(err)
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
	if err := s.disk.log.Close(); err != nil {
		s.diskFailedLocked(err)
	}
	s.disk.log = nil
}

func (s *Session) clock() time.Time {
	if s.now != nil {
		return s.now()
	}
	return time.Now()
}
