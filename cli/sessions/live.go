package sessions

import (
	"fmt"
	"strings"

	"scv/internal/termsafe"
	"scv/runtime/session"
)

// appendEvent adds ev to a transcript's events, joining a reasoning delta
// to the reasoning before it in the same turn: a replay from the file has
// one per response, one from the ring has the deltas.
func appendEvent(events []Event, ev Event) []Event {
	if r, ok := ev.Payload.(session.AssistantReasoning); ok && len(events) > 0 {
		last := &events[len(events)-1]
		if prev, ok := last.Payload.(session.AssistantReasoning); ok && prev.TurnID == r.TurnID {
			prev.Content += r.Content
			last.Payload, last.Seq = prev, ev.Seq
			return events
		}
	}
	return append(events, ev)
}

// renderLive writes the reasoning, folded, and a plan as a checklist; it
// reports whether payload was one of them.
func renderLive(b *strings.Builder, payload any) bool {
	switch p := payload.(type) {
	case session.AssistantReasoning:
		fmt.Fprintf(b, "\n<details><summary>Thinking</summary>\n\n%s\n</details>\n", fence(p.Content, "text"))
	case session.PlanUpdated:
		b.WriteString("\nPlan:\n\n")
		for _, s := range p.Steps {
			mark, note := "[ ]", ""
			switch s.Status {
			case session.PlanCompleted:
				mark = "[x]"
			case session.PlanInProgress:
				note = " _(in progress)_"
			}
			fmt.Fprintf(b, "- %s %s%s\n", mark, termsafe.Line(s.Step), note)
		}
	default:
		return false
	}
	return true
}
