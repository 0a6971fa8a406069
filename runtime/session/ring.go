package session

// ring keeps a session's newest events for connections that re-attach:
// at most ReplayEvents of them and, so that a few huge events (a model
// writing a large file shows it in tool/proposed) cannot pin memory, at
// most ReplayBytes, though always the newest one.
type ring struct {
	events []Event // events[head:] are held, oldest first
	head   int
	bytes  int
}

// eventBytes counts an event twice its JSON size: its values and the one
// encoding a front door usually memoizes on it.
func eventBytes(ev Event) int { return 2 * ev.size }

func (r *ring) push(ev Event) {
	r.events = append(r.events, ev)
	r.bytes += eventBytes(ev)
	for held := len(r.events) - r.head; held > ReplayEvents || (r.bytes > ReplayBytes && held > 1); held-- {
		r.bytes -= eventBytes(r.events[r.head])
		r.events[r.head] = Event{}
		r.head++
	}
	// Slide the held events down once the dropped prefix is as long as
	// they are, so pushes stay amortised O(1) and memory bounded.
	if r.head >= ReplayEvents && r.head >= len(r.events)-r.head {
		n := copy(r.events, r.events[r.head:])
		clear(r.events[n:])
		r.events = r.events[:n]
		r.head = 0
	}
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
