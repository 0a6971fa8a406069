package session

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"scv/internal/fakeopenai"
	"scv/runtime/provider"
	"scv/runtime/store"
)

// A response's reasoning is stored with the next record and replayed from
// the file as one event with the seq of its last delta, in seq order with
// the rest; the usage totals survive a reload.
func TestReasoningAndUsageAreStored(t *testing.T) {
	srv := fakeopenai.New(t)
	srv.Enqueue(fakeopenai.Reply{
		Reasoning: []string{"first ", "thought"}, Chunks: []string{"answer"},
		Usage: &provider.Usage{InputTokens: 70, OutputTokens: 7},
	})
	home := t.TempDir()
	cfg := fmt.Sprintf("[provider]\nbase_url = %q\napi_key = \"k\"\nmodel = \"m\"\n", srv.URL())
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(filepath.Join(home, "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	m := NewManager(Options{Home: home, Store: st, Getenv: func(string) string { return "" }})
	rec := newWaitingRecorder()
	s, _, err := m.Start(StartParams{Cwd: t.TempDir()}, rec)
	if err != nil {
		t.Fatal(err)
	}
	turn := startTurn(t, s, "think")
	rec.waitFor(t, TurnCompleted{}, 1)
	m.Shutdown()

	loaded, err := st.Read(s.ID())
	if err != nil {
		t.Fatal(err)
	}
	events, problems := StoredEvents(s.ID(), loaded.Records)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	var reasoning []AssistantReasoning
	var last uint64
	var reasoningSeq, completedSeq uint64
	for _, ev := range events {
		if ev.Seq <= last {
			t.Fatalf("replayed seq %d after %d", ev.Seq, last)
		}
		last = ev.Seq
		switch p := ev.Payload.(type) {
		case AssistantReasoning:
			reasoning = append(reasoning, p)
			reasoningSeq = ev.Seq
		case AssistantCompleted:
			completedSeq = ev.Seq
		}
	}
	if len(reasoning) != 1 || reasoning[0] != (AssistantReasoning{turn, "first thought"}) {
		t.Fatalf("stored reasoning = %+v, want one event of the whole text", reasoning)
	}
	if reasoningSeq == 0 || reasoningSeq > completedSeq {
		t.Errorf("reasoning replayed at seq %d, the answer at %d", reasoningSeq, completedSeq)
	}

	m2 := NewManager(Options{Home: home, Store: st, Getenv: func(string) string { return "" }})
	t.Cleanup(func() { m2.Shutdown() })
	again, err := m2.Load(s.ID())
	if err != nil {
		t.Fatal(err)
	}
	again.mu.Lock()
	usage := again.usage
	again.mu.Unlock()
	if usage != (provider.Usage{InputTokens: 70, OutputTokens: 7}) {
		t.Errorf("usage after a reload = %+v, want 70/7", usage)
	}
}
