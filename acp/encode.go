package acp

import (
	"scv/internal/jsonstr"

	"scv/acp/schema"
	"scv/runtime/session"
)

// acpUpdates is this door's key in an event's encoding memo: every ACP
// connection watching a session shares the update the first one built.
type acpUpdates struct{}

// sharedUpdate returns the session/update every client sees for ev, or
// nil when ev has none (or one that depends on the client: a prompt's
// echo, an approval, a turn's end). cwd is the session's, the same for
// every connection, so it may shape the shared bytes.
func sharedUpdate(ev session.Event, cwd string) []byte {
	return ev.Encoded(acpUpdates{}, func(ev session.Event) []byte { return encodeUpdate(ev, cwd) })
}

func encodeUpdate(ev session.Event, cwd string) []byte {
	var update any
	switch p := ev.Payload.(type) {
	case session.AssistantDelta:
		return appendChunk(nil, ev.SessionID, p.Content)
	case session.ToolProposed:
		update = toolCall(p, cwd)
	case session.ToolStarted:
		update = schema.ToolCallUpdate{SessionUpdate: schema.UpdateToolCallUpdate, ToolCallID: p.CallID, Status: schema.StatusInProgress}
	case session.ToolCompleted:
		update = toolDone(p)
	case session.AssistantReasoning:
		update = schema.Chunk{SessionUpdate: schema.UpdateAgentThought, Content: schema.Text(p.Content)}
	case session.PlanUpdated:
		update = planUpdate(p)
	case session.SessionUsage:
		if p.ContextMaxTokens <= 0 {
			return nil // a window of unknown size: nothing to measure against
		}
		update = schema.UsageUpdate{SessionUpdate: schema.UpdateUsage, Used: p.ContextTokens, Size: p.ContextMaxTokens}
	default:
		return nil
	}
	return notification(schema.MethodSessionUpdate, schema.Notification{SessionID: ev.SessionID, Update: update})
}

// appendChunk writes an agent_message_chunk without reflection: deltas
// are the streaming hot path.
// It sizes the line once (escapes aside), so a delta costs one allocation.
func appendChunk(dst []byte, sid, text string) []byte {
	const head = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":`
	const mid = `,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":`
	const tail = "}}}}\n"
	if dst == nil {
		dst = make([]byte, 0, len(head)+len(mid)+len(tail)+len(sid)+len(text)+16)
	}
	dst = append(dst, head...)
	dst = jsonstr.Append(dst, sid)
	dst = append(dst, mid...)
	dst = jsonstr.Append(dst, text)
	return append(dst, tail...)
}

func planUpdate(p session.PlanUpdated) schema.PlanUpdate {
	u := schema.PlanUpdate{SessionUpdate: schema.UpdatePlan, Entries: make([]schema.PlanEntry, 0, len(p.Steps))}
	for _, st := range p.Steps {
		u.Entries = append(u.Entries, schema.PlanEntry{Content: st.Step, Priority: schema.PriorityMedium, Status: st.Status})
	}
	return u
}

// sendProgress shows a resumed session's last plan and context use, which
// the snapshot carries, as the updates that first showed them.
func (d *Door) sendProgress(snap session.Snapshot) {
	for _, p := range []session.Payload{planOf(snap), usageOf(snap)} {
		if p == nil {
			continue
		}
		if frame := encodeUpdate(session.Event{SessionID: snap.SessionID, Payload: p}, snap.Cwd); frame != nil {
			_ = d.out.write(frame)
		}
	}
}

func planOf(snap session.Snapshot) session.Payload {
	if snap.Plan == nil {
		return nil
	}
	return *snap.Plan
}

func usageOf(snap session.Snapshot) session.Payload {
	if snap.Usage == nil {
		return nil
	}
	return *snap.Usage
}
