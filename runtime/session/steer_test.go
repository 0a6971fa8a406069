package session

import (
	"context"
	"strings"
	"testing"
)

func TestSteersWaitForTheStepBoundaryAndAreBounded(t *testing.T) {
	s, rec := bareSession(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tr := &turn{id: "t1", ctx: ctx, cancel: cancel}
	s.active = tr

	if err := s.Steer("other", "x", "1"); CodeOf(err) != CodeTurnNotFound {
		t.Errorf("steer of another turn: %v", err)
	}
	if err := s.Steer("t1", "  ", "1"); CodeOf(err) != CodeInvalidPrompt {
		t.Errorf("empty steer: %v", err)
	}
	for i := range MaxQueueItems {
		if err := s.Steer("t1", strings.Repeat("p", i+1), "1"); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Steer("t1", "one too many", "1"); CodeOf(err) != CodeQueueLimit {
		t.Errorf("steer past maxQueueItems: %v", err)
	}
	if len(s.history) != 0 || len(rec.events) != 0 {
		t.Fatalf("steers reached the history before the step boundary")
	}
	// Waiting steers keep the turn going.
	if s.finishUnlessSteered(tr) {
		t.Error("the turn would end with steers waiting")
	}
	if err := s.applySteers(tr); err != nil {
		t.Fatal(err)
	}
	if len(s.history) != MaxQueueItems || s.history[0].Content != "p" || len(rec.events) != MaxQueueItems {
		t.Errorf("after the boundary: %d messages, %d events", len(s.history), len(rec.events))
	}
	if ev, ok := rec.events[0].Payload.(TurnSteered); !ok || ev.TurnID != "t1" || ev.Prompt != "p" {
		t.Errorf("first event = %#v", rec.events[0].Payload)
	}
	// Once the turn will ask the model nothing more, a steer is refused
	// rather than lost.
	if !s.finishUnlessSteered(tr) {
		t.Error("the turn did not finish without steers")
	}
	if err := s.Steer("t1", "late", "1"); CodeOf(err) != CodeTurnNotFound {
		t.Errorf("steer of a finishing turn: %v", err)
	}
}

func TestConfiguredValuesAreRebuilt(t *testing.T) {
	r := rebuilt{approved: map[string]bool{}}
	r.apply(SessionConfigured{Model: "a", ApprovalPolicy: "always"}, nil)
	r.apply(SessionConfigured{Model: "b", ApprovalPolicy: "never"}, nil)
	if r.configured == nil || *r.configured != (SessionConfigured{Model: "b", ApprovalPolicy: "never"}) {
		t.Errorf("rebuilt configuration = %+v", r.configured)
	}
}
