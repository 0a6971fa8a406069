package session

import "fmt"

// loadedTranscript is a loaded session's stored events, kept from its load
// for the first full replay so that attaching a stored session reads and
// decodes its file once, not twice.
type loadedTranscript struct {
	events []Event
	// last is the log's last seq when the events were kept: they are the
	// whole file only while nothing has been appended since.
	last uint64
}

// keepLoadedLocked keeps stored, the events decoded at load, plus the
// stored events the load itself emitted (a restore's), for the next full
// replay. The first attach of any kind lets them go: a session loaded and
// then attached without replay does not hold its transcript in memory.
func (s *Session) keepLoadedLocked(stored []Event) {
	last := s.disk.log.LastSeq()
	held, _ := s.ring.after(0)
	for _, ev := range held {
		if _, ok := RecordType(ev.Payload); ok && ev.Seq <= last {
			stored = append(stored, ev)
		}
	}
	s.disk.loaded = &loadedTranscript{events: stored, last: last}
}

// storedTranscriptLocked returns the session's stored events, oldest first,
// and the seq of the last record they come from: the events kept at load
// when the file has not grown since, else the file read and decoded.
func (s *Session) storedTranscriptLocked() ([]Event, uint64, error) {
	kept := s.disk.loaded
	s.disk.loaded = nil
	if kept != nil && kept.last == s.disk.log.LastSeq() {
		return kept.events, kept.last, nil
	}
	s.syncDiskLocked()
	loaded, err := s.disk.store.Read(s.id)
	if err != nil {
		return nil, 0, fmt.Errorf("read session %s for its replay: %w", s.id, err)
	}
	events, problems := StoredEvents(s.id, loaded.Records)
	for _, p := range problems {
		s.logger().Warn("a stored record was skipped in a replay", "session", s.id, "err", p)
	}
	var last uint64
	if n := len(loaded.Records); n > 0 {
		last = loaded.Records[n-1].Seq
	}
	return events, last, nil
}
