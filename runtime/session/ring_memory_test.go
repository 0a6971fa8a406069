package session

import (
	"encoding/json"
	"strings"
	"testing"
)

// encoder is a Subscriber that encodes each event as a front door does
// in Deliver: once per dialect, through the event's memo.
type encoder struct{ dialect any }

func (e encoder) Deliver(ev Event) {
	ev.Encoded(e.dialect, func(ev Event) []byte {
		b, _ := json.Marshal(ev.Payload)
		return append([]byte(`Content-Length: 123456789\r\n\r\n{"jsonrpc":"2.0","params":`), b...)
	})
}

// pinnedBytes counts what the ring's events keep in memory: their values,
// the JSON they were measured with, and the encodings cached on them.
func pinnedBytes(r *ring) int {
	held, _ := r.after(0)
	n := 0
	for _, ev := range held {
		n += ev.size + len(ev.json)
		if ev.memo != nil {
			ev.memo.mu.Lock()
			n += len(ev.memo.first.bytes)
			for _, c := range ev.memo.more {
				n += len(c.bytes)
			}
			ev.memo.mu.Unlock()
		}
	}
	return n
}

// A session's replay ring keeps at most ReplayBytes in memory however
// its events are encoded: large answers delivered to clients of two
// dialects (scv lsp and ACP) are held with every copy they pin counted.
func TestRingHoldsNoMoreThanReplayBytes(t *testing.T) {
	for _, dialects := range []int{0, 1, 2} {
		s, _ := bareSession(t)
		s.limits.MaxServerFrameBytes = 8 << 20
		type lspFrames struct{}
		type acpUpdates struct{}
		for _, d := range []any{lspFrames{}, acpUpdates{}}[:dialects] {
			s.subscribeLocked(encoder{d})
		}
		overfillRing(t, s)
		if got := pinnedBytes(&s.ring); got > ReplayBytes {
			t.Errorf("%d dialects: the ring pins %d bytes, over ReplayBytes (%d)", dialects, got, ReplayBytes)
		}
		if held, _ := s.ring.after(0); len(held) == 0 {
			t.Errorf("%d dialects: the ring holds nothing", dialects)
		}
	}
}

// overfillRing emits answers of about 4 MiB until the ring has had to let
// the oldest go (twelve of them hold more than ReplayBytes).
func overfillRing(t *testing.T, s *Session) {
	t.Helper()
	answer := strings.Repeat("y", 3900<<10)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := 0; i < 12; i++ {
		if err := s.emitLocked(AssistantCompleted{TurnID: "t1", Content: answer}); err != nil {
			t.Fatal(err)
		}
	}
}

// An event that left the ring lets its encodings go, though its memo
// shares a block with events still held: a block would otherwise pin
// the encodings of up to memoSlabSize events the ring no longer counts.
func TestRingLetsTheEncodingsOfDroppedEventsGo(t *testing.T) {
	s, rec := bareSession(t)
	s.limits.MaxServerFrameBytes = 8 << 20
	type lspFrames struct{}
	s.subscribeLocked(encoder{lspFrames{}})
	overfillRing(t, s)
	_, oldest := s.ring.after(0)
	for _, ev := range rec.events {
		if ev.Seq < oldest && ev.memo.bytes() != 0 {
			t.Errorf("event %d left the ring (oldest held %d) but its memo keeps %d bytes", ev.Seq, oldest, ev.memo.bytes())
		}
	}
}
