package sessions

import (
	"strings"
	"testing"

	"scv/runtime/session"
)

// Reasoning deltas of one turn join into one folded block; a plan renders
// as a checklist.
func TestRenderReasoningAndPlan(t *testing.T) {
	var events []Event
	for i, p := range []any{
		session.TurnStarted{TurnID: "t1", Prompt: "go"},
		session.AssistantReasoning{TurnID: "t1", Content: "first "},
		session.AssistantReasoning{TurnID: "t1", Content: "thought"},
		session.PlanUpdated{TurnID: "t1", Steps: []session.PlanStep{
			{Step: "read", Status: session.PlanCompleted}, {Step: "fix", Status: session.PlanInProgress}, {Step: "test", Status: session.PlanPending}}},
	} {
		events = appendEvent(events, Event{SessionID: "s1", Seq: uint64(i + 1), Payload: p})
	}
	if len(events) != 3 || events[1].Seq != 3 {
		t.Fatalf("events = %+v, want the two reasoning deltas joined at seq 3", events)
	}
	md := Render(Transcript{SessionID: "s1", Events: events})
	for _, want := range []string{
		"<details><summary>Thinking</summary>\n\n```text\nfirst thought\n```\n\n</details>",
		"Plan:\n\n- [x] read\n- [ ] fix _(in progress)_\n- [ ] test\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}
