package session

import "slices"

// turnMarks knows where each turn begins in the model's history and which
// turns were reverted, so a revert can cut the history back to before a
// turn. A live session and a rebuild from the log keep them the same way.
type turnMarks struct {
	order    []string       // turns started, oldest first
	start    map[string]int // the turn's prompt, as an index counted from the first message ever added
	base     int            // messages dropped from the front (compaction, clear)
	reverted map[string]bool
}

// started records turn id, whose prompt is the last of historyLen messages.
func (m *turnMarks) started(id string, historyLen int) {
	if m.start == nil {
		m.start, m.reverted = map[string]int{}, map[string]bool{}
	}
	m.order = append(m.order, id)
	m.start[id] = m.base + historyLen - 1
}

// forget takes back started(id) of a turn that did not start after all.
func (m *turnMarks) forget(id string) {
	if i := slices.Index(m.order, id); i >= 0 {
		m.order = slices.Delete(m.order, i, i+1)
	}
	delete(m.start, id)
}

// dropped records n messages removed from the front of the history.
func (m *turnMarks) dropped(n int) { m.base += n }

// from returns turn id and every later turn not reverted yet, and the
// history length that leaves them all out; ok is false for a turn that
// is unknown or reverted already.
func (m *turnMarks) from(id string) (ids []string, keep int, ok bool) {
	i := slices.Index(m.order, id)
	if i < 0 || m.reverted[id] {
		return nil, 0, false
	}
	for _, later := range m.order[i:] {
		if !m.reverted[later] {
			ids = append(ids, later)
		}
	}
	return ids, max(0, m.start[id]-m.base), true
}

// revert marks ids reverted.
func (m *turnMarks) revert(ids []string) {
	for _, id := range ids {
		m.reverted[id] = true
	}
}
