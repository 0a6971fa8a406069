package bridge

import (
	"encoding/json"
	"strings"

	"scv/internal/termsafe"
	"scv/lsp/schema"
)

// liveView is what the terminal view keeps to show issue 12's live
// events: the turns whose thinking was announced, and per tool call the
// live output shown so far and the line it has not finished.
type liveView struct {
	thinking map[string]bool
	shown    map[string]int    // callId → bytes of live output printed
	partial  map[string]string // callId → the unfinished last line
}

// liveParams are the members of the live events the view shows.
type liveParams struct {
	Seq    uint64 `json:"seq"`
	TurnID string `json:"turnId"`
	CallID string `json:"callId"`
	Chunk  string `json:"chunk"`
	Steps  []struct {
		Step   string `json:"step"`
		Status string `json:"status"`
	} `json:"steps"`
}

// planMarks are the checklist marks of the plan step statuses.
var planMarks = map[string]string{"completed": "[x]", "in_progress": "[>]", "pending": "[ ]"}

// renderLive shows reasoning (folded to one line per turn, as the editors
// fold it), live tool output (indented, at most viewOutputBytes per call)
// and plans; usage is left to the turn's end line. It reports whether
// method was one of these, and the event's seq.
func (v *AttachView) renderLive(method string, raw json.RawMessage) (uint64, bool) {
	switch method {
	case schema.EvAssistantReasoning, schema.EvToolOutput, schema.EvPlanUpdated, schema.EvSessionUsage:
	default:
		return 0, false
	}
	var p liveParams
	if err := json.Unmarshal(raw, &p); err != nil {
		v.line("• " + termsafe.Line(method) + " (undecodable: " + termsafe.Line(err.Error()) + ")")
		return 0, true
	}
	if v.live.thinking == nil {
		v.live = liveView{thinking: map[string]bool{}, shown: map[string]int{}, partial: map[string]string{}}
	}
	switch method {
	case schema.EvAssistantReasoning:
		if !v.live.thinking[p.TurnID] {
			v.live.thinking[p.TurnID] = true
			v.line("• thinking…")
		}
	case schema.EvToolOutput:
		v.liveOutput(p.CallID, p.Chunk)
	case schema.EvPlanUpdated:
		v.line("• plan")
		for _, s := range p.Steps {
			v.line("  " + planMarks[s.Status] + " " + termsafe.Line(s.Step))
		}
	}
	return p.Seq, true
}

// liveOutput prints a chunk's finished lines, indented under the call.
func (v *AttachView) liveOutput(callID, chunk string) {
	left := viewOutputBytes - v.live.shown[callID]
	if left <= 0 {
		return
	}
	chunk = termsafe.Clip(chunk, left)
	v.live.shown[callID] += len(chunk)
	text := v.live.partial[callID] + chunk
	end := strings.LastIndexByte(text, '\n')
	v.live.partial[callID] = text[end+1:]
	if end < 0 {
		return
	}
	for _, l := range strings.Split(text[:end], "\n") {
		v.line("  │ " + termsafe.Escape(l))
	}
}

// liveOutputShown ends a call's live output and reports whether there
// was any, so that its result is not printed twice.
func (v *AttachView) liveOutputShown(callID string) bool {
	if _, ok := v.live.shown[callID]; !ok {
		return false
	}
	if rest := v.live.partial[callID]; rest != "" {
		v.line("  │ " + termsafe.Escape(rest))
	}
	delete(v.live.shown, callID)
	delete(v.live.partial, callID)
	return true
}
