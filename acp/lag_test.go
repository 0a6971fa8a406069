package acp

import (
	"bytes"
	"strings"
	"testing"

	"scv/runtime/session"
)

// A client that does not read fills no unbounded queue: deltas past
// protocol.outbound_queue_bytes are dropped and counted, the events a prompt's answer
// depends on are kept, and a client that reads notices is told.
func TestTheEventQueueIsBoundedAndControlEventsAreKept(t *testing.T) {
	delta := session.Event{SessionID: "s", Payload: session.AssistantDelta{Content: "x"}}
	const fit = 100
	size := eventOverhead + len(encodeUpdate(delta, ""))
	d := New(Options{Backend: &Local{}, MaxQueuedBytes: fit * size})
	d.sessions["s"] = &sessState{}
	for range fit + 10 {
		d.deliver(session.Event{SessionID: "s", Payload: session.AssistantDelta{Content: "x"}})
	}
	d.deliver(session.Event{SessionID: "s", Payload: session.TurnCompleted{TurnID: "t"}})
	if got := len(d.queue); got != fit+1 {
		t.Fatalf("queued %d events, want %d (the bound, plus the turn's end)", got, fit+1)
	}
	if _, ok := d.queue[len(d.queue)-1].ev.Payload.(session.TurnCompleted); !ok {
		t.Fatal("the turn's end was dropped")
	}
	if d.lag["s"] != 10 {
		t.Fatalf("lag = %d, want 10", d.lag["s"])
	}

	var out bytes.Buffer
	d.out.w = &out
	d.notices = true
	d.reportLag()
	if !strings.Contains(out.String(), `"sessionUpdate":"notice"`) || !strings.Contains(out.String(), "10 updates") {
		t.Fatalf("no notice of the dropped updates: %s", out.String())
	}
	if len(d.lag) != 0 {
		t.Fatal("the lag was reported but not cleared")
	}
}

// A running call's output is charged its chunk's bytes (its update is
// built later, by the pump) and, past the bound, dropped like a delta,
// while the call's completion is kept.
func TestRunningOutputCountsAgainstTheQueueBound(t *testing.T) {
	chunk := strings.Repeat("x", 1000)
	const fit = 10
	d := New(Options{Backend: &Local{}, MaxQueuedBytes: fit * (eventOverhead + len(chunk))})
	d.sessions["s"] = &sessState{}
	for range fit + 5 {
		d.deliver(session.Event{SessionID: "s", Payload: session.ToolOutput{CallID: "c", Chunk: chunk}})
	}
	d.deliver(session.Event{SessionID: "s", Payload: session.ToolCompleted{CallID: "c", Name: "shell", Success: true}})
	if got := len(d.queue); got != fit+1 {
		t.Fatalf("queued %d events, want %d (the bound, plus the completion)", got, fit+1)
	}
	if d.lag["s"] != 5 {
		t.Fatalf("lag = %d, want 5", d.lag["s"])
	}
}
