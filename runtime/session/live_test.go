package session

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"scv/internal/fakeopenai"
	"scv/runtime/ceiling"
	"scv/runtime/config"
	"scv/runtime/provider"
	"scv/runtime/store"
)

// A response's reasoning is stored with the next record and replayed from
// the file as one event with the seq of its last delta, in seq order with
// the rest; the usage totals survive a reload.
// homeFor is a $SCV_HOME whose config.toml points the provider at srv,
// followed by extra (whole TOML tables, or "").
func homeFor(t *testing.T, srv *fakeopenai.Server, extra string) string {
	t.Helper()
	home := t.TempDir()
	cfg := fmt.Sprintf("[provider]\nbase_url = %q\napi_key = \"k\"\nmodel = \"m\"\n", srv.URL()) + extra
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

func TestReasoningAndUsageAreStored(t *testing.T) {
	srv := fakeopenai.New(t)
	srv.Enqueue(fakeopenai.Reply{
		Reasoning: []string{"first ", "thought"}, Chunks: []string{"answer"},
		Usage: &provider.Usage{InputTokens: 70, OutputTokens: 7},
	})
	home := homeFor(t, srv, "")
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
	again, err := m2.Load(s.ID(), config.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	again.mu.Lock()
	live := again.live
	snap := again.snapshotLocked()
	again.mu.Unlock()
	if live.totals != (provider.Usage{InputTokens: 70, OutputTokens: 7}) {
		t.Errorf("usage totals after a reload = %+v, want 70/7", live.totals)
	}
	if snap.Usage == nil || snap.Usage.ContextTokens != 70 || snap.Usage.TurnID != turn {
		t.Errorf("the snapshot's usage after a reload = %+v", snap.Usage)
	}
}

// update_plan changes nothing outside the session: it runs without asking
// under every policy, never and always included, and under a ceiling of it.
func TestPlanToolRunsUnderEveryPolicy(t *testing.T) {
	for _, policy := range ApprovalPolicies {
		c, err := ceiling.New(ceiling.FlagBound(policy, "scv lsp"))
		if err != nil {
			t.Fatal(err)
		}
		if got := gateForTool(policy, c, planTool{}); got != gateRun {
			t.Errorf("policy %s gates update_plan %v, want run", policy, got)
		}
	}
}

// decodePlan names what is wrong with a plan; the model reads it.
func TestPlanValidation(t *testing.T) {
	for args, want := range map[string]string{
		`{}`: `"steps" is required`,
		`{"steps":[{"step":" ","status":"pending"}]}`: "steps[0].step must not be empty",
		`{"steps":[{"step":"a","status":"done"}]}`:    `steps[0].status must be pending, in_progress or completed, not "done"`,
		`{"steps":[],"extra":1}`:                      `unknown field "extra"`,
		`{"steps":"a"}`:                               "arguments must be",
	} {
		if _, err := decodePlan([]byte(args)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want it to contain %q", args, err, want)
		}
	}
	if steps, err := decodePlan([]byte(`{"steps":[]}`)); err != nil || steps == nil || len(steps) != 0 {
		t.Errorf("an empty plan = %v, %v; want an empty list (the plan is done)", steps, err)
	}
}
