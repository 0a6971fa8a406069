package session

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"scv/runtime/store"
)

// TestTheTurnThatFillsTheFileSaysSoOnce: a session past 80 % of its
// file's bound refused prompts with nothing said before. The end of the
// turn during which the file crossed carries the notice, the next turn's
// end does not, and the notice is stored with the event, so a reload
// replays it and does not say it again.
func TestTheTurnThatFillsTheFileSaysSoOnce(t *testing.T) {
	const bound = 64 << 10
	st, err := store.OpenWith(filepath.Join(t.TempDir(), "sessions"), store.Limits{MaxLogBytes: bound})
	if err != nil {
		t.Fatal(err)
	}
	s, rec := sessionOnDisk(t, st)
	running := &turn{id: "running", ctx: context.Background()}
	s.active = running // so prompts queue (the queue is stored)
	prompt := strings.Repeat("a long prompt ", 300)
	var refused error
	for i := 0; i < MaxQueueItems && refused == nil; i++ {
		_, refused = s.StartTurn(prompt, nil, "1")
	}
	if CodeOf(refused) != CodeSessionTooLarge {
		t.Fatalf("a session filling its file: %v, want code %s", refused, CodeSessionTooLarge)
	}
	ends := func(t *turn) TurnCompleted {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.emitTerminalLocked(t, outcome{})
		return rec.events[len(rec.events)-1].Payload.(TurnCompleted)
	}
	first := ends(running)
	for _, want := range []string{"sessions.max_log_bytes", "65536", "new session", "fork an earlier turn"} {
		if !strings.Contains(first.Notice, want) {
			t.Fatalf("the end of the turn that filled the file does not say %q: %+v", want, first)
		}
	}
	if again := ends(&turn{id: "next", ctx: context.Background()}); again.Notice != "" {
		t.Fatalf("said again: %+v", again)
	}
	loaded := closeAndRead(t, st, s)
	r := rebuild(loaded.Records)
	if !r.toldFull {
		t.Fatal("a reload would say it again")
	}
	// Reloaded under the same bound it is not said again; under a bound
	// raised since, which leaves the file below 80 %, it is said when the
	// file passes 80 % of that.
	for _, c := range []struct {
		bound int64
		told  bool
	}{{bound, true}, {1 << 20, false}} {
		reopened, err := store.OpenWith(st.Dir(), store.Limits{MaxLogBytes: c.bound})
		if err != nil {
			t.Fatal(err)
		}
		log, _, err := reopened.Load(s.id)
		if err != nil {
			t.Fatal(err)
		}
		d := disk{store: reopened, log: log}
		if got := d.toldFullAtLoad(r.toldFull); got != c.told {
			t.Errorf("reloaded under a bound of %d: told %v, want %v", c.bound, got, c.told)
		}
		log.Close()
	}
	events, _ := StoredEvents(s.id, loaded.Records)
	stored := ""
	for _, ev := range events {
		if e, ok := ev.Payload.(TurnCompleted); ok && e.TurnID == "running" {
			stored = e.Notice
		}
	}
	if stored != first.Notice {
		t.Fatalf("stored notice %q, want %q", stored, first.Notice)
	}
}
