package session

// ring keeps a session's newest events for connections that re-attach:
// at most ReplayEvents of them and, so that a few huge events (a model
// writing a large file shows it in tool/proposed, a long answer) cannot
// pin memory, at most ReplayBytes of memory, though always the newest one.
type ring struct {
	events  []Event // events[head:] are held, oldest first
	charged []int   // charged[i] is what events[i] was charged
	head    int
	bytes   int
}

// heldCost is what an event held in the ring keeps in memory: its
// values (about its JSON size) and the encodings the doors cached on it
// when it was delivered — at least one, which a replay makes if no door
// did. The JSON it was measured with is not kept (push drops it).
func heldCost(ev Event) int {
	enc := 0
	if ev.memo != nil {
		enc = ev.memo.bytes()
	}
	return ev.size + max(enc, ev.size+frameOverheadBytes)
}

// push holds ev, delivered already, and drops the oldest events past
// either bound.
func (r *ring) push(ev Event) {
	// The doors have encoded it; a replay through a dialect that did not
	// encodes its values again rather than the ring keeping a third copy.
	ev.json = nil
	r.events = append(r.events, ev)
	n := heldCost(ev)
	r.charged = append(r.charged, n)
	r.bytes += n
	for held := len(r.events) - r.head; held > ReplayEvents || (r.bytes > ReplayBytes && held > 1); held-- {
		r.bytes -= r.charged[r.head]
		if m := r.events[r.head].memo; m != nil {
			m.forget()
		}
		r.events[r.head] = Event{}
		r.head++
	}
	// Slide the held events down once the dropped prefix is as long as
	// they are, so pushes stay amortised O(1) and memory bounded.
	if r.head >= ReplayEvents && r.head >= len(r.events)-r.head {
		n := copy(r.events, r.events[r.head:])
		copy(r.charged, r.charged[r.head:])
		clear(r.events[n:])
		r.events = r.events[:n]
		r.charged = r.charged[:n]
		r.head = 0
	}
}

// reset lets every held event go.
func (r *ring) reset() {
	for _, ev := range r.events[r.head:] {
		if ev.memo != nil {
			ev.memo.forget()
		}
	}
	*r = ring{}
}

// after returns the held events with seq > afterSeq, oldest first, and the
// seq of the oldest held event (0 when empty).
func (r *ring) after(afterSeq uint64) (events []Event, oldest uint64) {
	held := r.events[r.head:]
	if len(held) == 0 {
		return nil, 0
	}
	for i, ev := range held {
		if ev.Seq > afterSeq {
			events = append([]Event(nil), held[i:]...)
			break
		}
	}
	return events, held[0].Seq
}
