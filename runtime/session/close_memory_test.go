package session

import (
	"path/filepath"
	"strings"
	"testing"

	"scv/internal/fakeopenai"
	"scv/runtime/store"
)

// heldBytes is what a session keeps of its turns: the ring's events and
// the model's history.
func heldBytes(s *Session) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.ring.bytes
	for _, m := range s.history {
		n += len(m.Content)
	}
	return n
}

// A closed session keeps none of its turns in memory, so a long-lived
// daemon does not hold the sessions it closed (the Manager keeps a
// closing session until another one closes), and the Manager says when
// a close has finished, so that the process can give the memory back.
func TestAClosedSessionHoldsNothingAndIsReported(t *testing.T) {
	srv := fakeopenai.New(t)
	answer := strings.Repeat("z", 1<<20)
	srv.Enqueue(fakeopenai.Reply{Chunks: []string{answer}})
	home := homeFor(t, srv, "")
	st, err := store.Open(filepath.Join(home, "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	closed := make(chan string, 4)
	m := NewManager(Options{Home: home, Store: st, Getenv: func(string) string { return "" },
		OnClosed: func(id string) { closed <- id }})
	rec := newWaitingRecorder()
	s, _, err := m.Start(StartParams{Cwd: t.TempDir()}, rec)
	if err != nil {
		t.Fatal(err)
	}
	startTurn(t, s, "long answer")
	rec.waitFor(t, TurnCompleted{}, 1)
	if got := heldBytes(s); got < len(answer) {
		t.Fatalf("the open session holds %d bytes, less than its answer", got)
	}
	if err := m.Close(s.ID()); err != nil {
		t.Fatal(err)
	}
	if id := <-closed; id != s.ID() {
		t.Fatalf("OnClosed(%q), want %q", id, s.ID())
	}
	if got := heldBytes(s); got != 0 {
		t.Fatalf("a closed session still holds %d bytes of its turns", got)
	}
}
