package acp

import (
	"fmt"

	"scv/acp/schema"
	"scv/runtime/session"
)

// Options.MaxQueuedBytes (protocol.outbound_queue_bytes, the budget scv
// lsp gives a client) bounds the updates waiting for one ACP client that
// reads slower than its sessions speak. Past it, updates that only show
// progress (deltas, a tool starting, a running call's output: its chunk
// is then missing from the live view, not from the call's result) are
// dropped and counted, as scv lsp drops events past the same budget; the
// events a prompt's answer,
// a permission request or a tool call's state depend on are always kept,
// so every prompt is still answered. ACP has no lagged notification: a
// client that advertises session.notices is told how many updates it
// missed and that session/load re-syncs; others get a log line.
//
// eventOverhead is what a queued event is charged besides its update's
// bytes (and all an event without an update is charged).
const eventOverhead = 64

// droppable reports whether an event only shows progress.
func droppable(p session.Payload) bool {
	switch p.(type) {
	case session.AssistantDelta, session.AssistantReasoning, session.ToolStarted, session.SessionUsage, session.ToolOutput:
		return true
	}
	return false
}

// queuedSize is what an item is charged against MaxQueuedBytes: its
// update's bytes, or for a running call's output (whose update is built
// by the pump) its chunk's, and the text its event holds that no update
// carries (an answer, a prompt: the pump writes them as messages of their
// own, and a daemon's decoded event is a copy only the queue keeps).
func queuedSize(it item) int {
	switch p := it.ev.Payload.(type) {
	case session.ToolOutput:
		return eventOverhead + len(p.Chunk)
	case session.AssistantCompleted:
		return eventOverhead + len(it.update) + len(p.Content)
	case session.TurnStarted:
		return eventOverhead + len(it.update) + len(p.Prompt)
	case session.TurnSteered:
		return eventOverhead + len(it.update) + len(p.Prompt)
	}
	return eventOverhead + len(it.update)
}

// reportLag tells the client of updates dropped since the last report.
func (d *Door) reportLag() {
	d.mu.Lock()
	if len(d.lag) == 0 {
		d.mu.Unlock()
		return
	}
	lag := d.lag
	d.lag = map[string]uint64{}
	notices := d.notices
	d.mu.Unlock()
	for sid, missed := range lag {
		d.opts.Log.Warn("the ACP client reads too slowly; updates were dropped", "session", sid, "missed", missed, "limit_bytes", d.opts.MaxQueuedBytes)
		if notices {
			d.notify(schema.MethodSessionUpdate, schema.Notification{SessionID: sid, Update: schema.Notice{
				SessionUpdate: schema.UpdateNotice, Severity: "warning",
				Title:       fmt.Sprintf("%d updates were dropped: the editor read them too slowly", missed),
				Description: "session/load shows the session again in full.",
			}})
		}
	}
}
