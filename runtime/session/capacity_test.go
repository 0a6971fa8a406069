package session

import (
	"sync"
	"testing"
)

type discard struct{}

func (discard) Deliver(Event) {}

// Starts racing for the last places never open more than MaxSessions, and
// a failed start gives its place back.
func TestConcurrentStartsStayWithinMaxSessions(t *testing.T) {
	const max, tries = 3, 12
	m := NewManager(Options{Home: t.TempDir(), Limits: Limits{MaxSessions: max}})
	cwd := t.TempDir()
	var wg sync.WaitGroup
	errs := make(chan error, tries)
	for range tries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, err := m.Start(StartParams{Cwd: cwd, Provider: "replay"}, discard{})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	refused := 0
	for err := range errs {
		switch {
		case err == nil:
		case CodeOf(err) == CodeTooManySessions:
			refused++
		default:
			t.Fatalf("start: %v", err)
		}
	}
	if m.Count() != max || refused != tries-max {
		t.Fatalf("%d sessions open and %d refused, want %d and %d", m.Count(), refused, max, tries-max)
	}

	// A start that fails after taking a place (a bad cwd is refused before
	// that; a bad policy after) leaves the count as it was.
	if err := m.Close(m.List()[0].SessionID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.Start(StartParams{Cwd: cwd, Provider: "replay", ApprovalPolicy: "sometimes"}, discard{}); CodeOf(err) != CodeInvalidParams {
		t.Fatalf("start with a bad policy: %v", err)
	}
	if _, _, err := m.Start(StartParams{Cwd: cwd, Provider: "replay"}, discard{}); err != nil {
		t.Fatalf("the failed start kept its place: %v", err)
	}
}
