package session

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"scv/runtime/provider"
	"scv/runtime/store"
)

// rebuilt is a stored session's state, replayed from its records.
type rebuilt struct {
	history   []provider.Message
	queue     []QueueEntry
	nextQueue uint64
	paused    bool
	approved  map[string]bool
	// open are the approvals requested and not resolved, oldest first.
	open []Approval
	// running is the turn started and not ended ("" when none).
	running string
	turns   int
	title   string
	// configured is the last scv/session/configure's values; nil when
	// the session kept those it was created with.
	configured *SessionConfigured
	live       liveState // usage totals, the last usage and the plan
	marks      turnMarks
	// toldFull: a stored turn's end said the file was past
	// logFullPercent of its bound, so a reload does not say it again.
	toldFull bool
	// seq is where the session resumes: the last record's seq or the
	// last reservation, whichever is higher. reserved is the reservation.
	seq, reserved uint64
	problems      []error
}

// rebuild replays records into the state the session had when the last of
// them was written. The history it builds equals the live one: every
// message the session added to it is stored (recordExtras.History), and
// compactions and clears are replayed in order.
func rebuild(recs []store.Record) rebuilt { return rebuildDecoded(decodeRecords(recs)) }

// rebuildDecoded is rebuild from records decoded already.
func rebuildDecoded(ds []decoded) rebuilt {
	r := rebuilt{approved: map[string]bool{}}
	names := map[string]string{} // approval id → tool name
	for _, d := range ds {
		r.seq = max(r.seq, d.seq)
		if d.err != nil {
			r.problems = append(r.problems, d.err)
			continue
		}
		r.history = append(r.history, d.extras.History...)
		if d.extras.SeqReserve > store.MaxSeq {
			// Resuming there would leave no seq to emit (or wrap).
			r.problems = append(r.problems, fmt.Errorf("record %d: a seq reservation up to %d is beyond store.MaxSeq: ignored", d.seq, d.extras.SeqReserve))
		} else {
			r.reserved = max(r.reserved, d.extras.SeqReserve)
		}
		r.apply(d.payload, names)
	}
	r.seq = max(r.seq, r.reserved)
	return r
}

func (r *rebuilt) apply(p Payload, names map[string]string) {
	switch e := p.(type) {
	case TurnStarted:
		r.running = e.TurnID
		r.turns++
		r.marks.started(e.TurnID, len(r.history))
		if r.title == "" {
			r.title = store.Title(e.Prompt)
		}
	case TurnCompleted, TurnCancelled, TurnFailed:
		r.running = ""
		r.open = nil
		r.toldFull = r.toldFull || TurnEndNotice(e) != ""
	case ApprovalRequested:
		names[e.ApprovalID] = e.Name
		r.open = append(r.open, e.Approval)
	case ApprovalResolved:
		r.open = slices.DeleteFunc(r.open, func(a Approval) bool { return a.ApprovalID == e.ApprovalID })
		if e.Decision == DecisionApproveSession {
			r.approved[names[e.ApprovalID]] = true
		}
	case ContextCompacted:
		n := min(e.RemovedMessages, len(r.history))
		r.history = append([]provider.Message(nil), r.history[n:]...)
		r.marks.dropped(n)
	case QueueEnqueued:
		// At its position: a turn's unread steers go to the front.
		r.queue = slices.Insert(r.queue, min(max(e.Position, 0), len(r.queue)), e.Entry)
		if n, ok := queueNumber(e.Entry.QueueID); ok {
			r.nextQueue = max(r.nextQueue, n)
		}
	case QueueUpdated:
		if i := r.find(e.Entry.QueueID); i >= 0 {
			e.Entry.attachments = r.queue[i].attachments
			r.queue[i] = e.Entry
		}
	case QueueMoved:
		if i := r.find(e.QueueID); i >= 0 {
			entry := r.queue[i]
			entry.Revision = e.Revision
			r.queue = slices.Delete(r.queue, i, i+1)
			r.queue = slices.Insert(r.queue, min(max(e.Position, 0), len(r.queue)), entry)
		}
	case QueueRemoved:
		r.remove(e.QueueID)
	case QueueDequeued:
		r.remove(e.QueueID)
	case QueueSnapshot:
		var q []QueueEntry
		for _, want := range e.Entries {
			if i := r.find(want.QueueID); i >= 0 {
				want.attachments = r.queue[i].attachments
			}
			q = append(q, want)
		}
		r.queue, r.paused = q, e.Paused
	case SessionPaused:
		r.paused = e.Paused
	case SessionCleared:
		r.marks.dropped(len(r.history))
		r.history, r.queue, r.live.plan = nil, nil, nil
		r.approved = map[string]bool{}
	case TurnReverted:
		if _, keep, ok := r.marks.from(e.TurnID); ok && keep < len(r.history) {
			r.history = append([]provider.Message(nil), r.history[:keep]...)
		}
		r.marks.revert(e.TurnIDs)
	case SessionRenamed:
		r.title = e.Title
	case SessionUsage:
		r.live.totals = provider.Usage{InputTokens: e.InputTokens, OutputTokens: e.OutputTokens}
		r.live.lastUsage = &e
	case PlanUpdated:
		r.live.plan = &e
	case SessionRestored:
		r.paused = r.paused || e.Paused
	case SessionConfigured:
		r.configured = &e
	}
}

func (r *rebuilt) find(queueID string) int {
	return slices.IndexFunc(r.queue, func(e QueueEntry) bool { return e.QueueID == queueID })
}

func (r *rebuilt) remove(queueID string) {
	if i := r.find(queueID); i >= 0 {
		r.queue = slices.Delete(r.queue, i, i+1)
	}
}

// queueNumber reads the number of a queue id ("q7" → 7).
func queueNumber(id string) (uint64, bool) {
	rest, ok := strings.CutPrefix(id, "q")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(rest, 10, 64)
	return n, err == nil
}

func (r *rebuilt) queueBytes() int {
	n := 0
	for _, e := range r.queue {
		n += e.bytes()
	}
	return n
}
