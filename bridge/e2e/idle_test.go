package e2e

import (
	"slices"
	"sync"
	"testing"
	"time"

	"scv/internal/fakeopenai"
	"scv/runtime/session"
)

// The daemon closes idle sessions through Manager.CloseIdle on a ticker
// (cmd/scv reapIdleSessions, daemon.session_idle_minutes, at least one
// minute). A real daemon would make this test last minutes, so it drives
// the Manager the daemon uses with a clock it moves by hand.

// fakeClock is a clock that moves only when told to.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// sink is a subscriber that keeps the events it receives.
type sink struct {
	mu     sync.Mutex
	events []session.Payload
}

func (s *sink) Deliver(ev session.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, ev.Payload)
}

func TestIdleSessionsAreClosedAfterTheirIdleTime(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const maxIdle = 30 * time.Minute
	clock := &fakeClock{now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	m := session.NewManager(session.Options{Home: e.home, Getenv: func(string) string { return "" }, Now: clock.Now})
	start := func(sub session.Subscriber) *session.Session {
		t.Helper()
		s, _, err := m.Start(session.StartParams{Cwd: e.work}, sub)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	closeIdle := func(want ...string) {
		t.Helper()
		got := m.CloseIdle(maxIdle)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("CloseIdle closed %v, want %v", got, want)
		}
	}

	// A session with a window is never idle.
	watched := start(&sink{})
	// A session whose window left is closed once it has been idle maxIdle.
	leaver := &sink{}
	left := start(leaver)
	// A session whose turn runs with no window stays while the turn runs,
	// and its idle time starts when the turn ends.
	runner := &sink{}
	running := start(runner)
	hold, release := e.hold()
	e.openai.Enqueue(fakeopenai.Reply{Chunks: []string{"busy"}, Hold: hold})
	if _, err := running.StartTurn("work alone", nil, "1"); err != nil {
		t.Fatal(err)
	}

	left.Detach(leaver)
	running.Detach(runner)
	clock.advance(maxIdle - time.Minute)
	closeIdle()
	clock.advance(2 * time.Minute)
	closeIdle(left.ID())
	if _, err := m.Get(left.ID()); err == nil {
		t.Fatal("a closed session can still be found")
	}

	clock.advance(time.Hour)
	closeIdle() // the turn still runs
	release()
	// The turn ends on its own goroutine; nothing else reports it here.
	deadline := time.Now().Add(waitTimeout)
	for running.Running() {
		if time.Now().After(deadline) {
			t.Fatalf("the released turn did not end within %v", waitTimeout)
		}
		time.Sleep(time.Millisecond)
	}
	clock.advance(maxIdle - time.Minute)
	closeIdle()
	clock.advance(2 * time.Minute)
	closeIdle(running.ID())

	clock.advance(24 * time.Hour)
	closeIdle()
	if got := m.List(); len(got) != 1 || got[0].SessionID != watched.ID() {
		t.Fatalf("the sessions left are %+v, want only the watched one", got)
	}
}
