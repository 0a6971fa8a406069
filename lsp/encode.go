package lsp

import (
	"encoding/json"
	"fmt"
	"strconv"

	"scv/lsp/schema"
	"scv/runtime/session"
)

// lspFrames is this door's key in an event's encoding memo: every
// connection of this dialect shares the frame the first one built.
type lspFrames struct{}

// frameOf returns ev as a framed scv notification, encoded once per event.
func frameOf(ev session.Event) []byte {
	return ev.Encoded(lspFrames{}, encodeEvent)
}

// methodOf names an event's notification.
func methodOf(p session.Payload) string {
	switch p.(type) {
	case session.TurnStarted:
		return schema.EvTurnStarted
	case session.AssistantDelta:
		return schema.EvAssistantDelta
	case session.AssistantCompleted:
		return schema.EvAssistantCompleted
	case session.ToolProposed:
		return schema.EvToolProposed
	case session.ToolStarted:
		return schema.EvToolStarted
	case session.ToolCompleted:
		return schema.EvToolCompleted
	case session.ApprovalRequested:
		return schema.EvApprovalRequested
	case session.ApprovalResolved:
		return schema.EvApprovalResolved
	case session.ContextCompacted:
		return schema.EvContextCompacted
	case session.TurnCompleted:
		return schema.EvTurnCompleted
	case session.TurnCancelled:
		return schema.EvTurnCancelled
	case session.TurnFailed:
		return schema.EvTurnFailed
	case session.QueueSnapshot:
		return schema.EvQueueSnapshot
	case session.QueueEnqueued:
		return schema.EvQueueEnqueued
	case session.QueueUpdated:
		return schema.EvQueueUpdated
	case session.QueueMoved:
		return schema.EvQueueMoved
	case session.QueueRemoved:
		return schema.EvQueueRemoved
	case session.QueueDequeued:
		return schema.EvQueueDequeued
	case session.SessionPaused:
		return schema.EvSessionPaused
	case session.SessionCleared:
		return schema.EvSessionCleared
	case session.SessionClosed:
		return schema.EvSessionClosed
	case session.SessionRenamed:
		return schema.EvSessionRenamed
	case session.SessionRestored:
		return schema.EvSessionRestored
	case session.McpStatus:
		return schema.EvMcpStatus
	case session.TurnSteered:
		return schema.EvTurnSteered
	case session.SessionConfigured:
		return schema.EvSessionConfigured
	case session.AssistantReasoning:
		return schema.EvAssistantReasoning
	case session.ToolOutput:
		return schema.EvToolOutput
	case session.PlanUpdated:
		return schema.EvPlanUpdated
	case session.SessionUsage:
		return schema.EvSessionUsage
	case session.TurnChanges:
		return schema.EvTurnChanges
	case session.TurnReverted:
		return schema.EvTurnReverted
	}
	panic(fmt.Sprintf("lsp: no notification for a %T event", p))
}

// encodeEvent frames ev: a JSON-RPC notification whose params are
// sessionId and seq followed by the event's members. Deltas, the streaming
// hot path, are written without reflection, straight into the frame.
func encodeEvent(ev session.Event) []byte {
	method := methodOf(ev.Payload)
	var members []byte
	var hint int
	switch d := ev.Payload.(type) {
	case session.AssistantDelta:
		hint = len(d.TurnID) + len(d.Content) + len(d.Content)/8 + 32
	case session.AssistantReasoning:
		hint = len(d.TurnID) + len(d.Content) + len(d.Content)/8 + 32
	case session.AssistantCompleted:
		hint = len(d.TurnID) + len(d.Content) + len(d.Content)/8 + 32
	default:
		rest, err := ev.PayloadJSON()
		if err != nil {
			rest = []byte("{}") // the runtime's values always encode
		}
		members = rest[1 : len(rest)-1]
		hint = len(members)
	}
	const open, mid, head = `{"jsonrpc":"2.0","method":"`, `","params":{"sessionId":`, `,"seq":`
	body := make([]byte, 0, 64+len(open)+len(method)+len(mid)+len(ev.SessionID)+len(head)+20+hint)
	body = append(body, "Content-Length: 0000000000\r\n\r\n"...)
	start := len(body)
	body = append(body, open...)
	body = append(body, method...)
	body = append(body, mid...)
	body = appendJSONString(body, ev.SessionID)
	body = append(body, head...)
	body = strconv.AppendUint(body, ev.Seq, 10)
	switch d := ev.Payload.(type) {
	case session.AssistantDelta:
		body = appendDelta(body, d.TurnID, d.Content)
	case session.AssistantReasoning:
		body = appendDelta(body, d.TurnID, d.Content)
	case session.AssistantCompleted:
		body = appendDelta(body, d.TurnID, d.Content)
		if d.Interrupted {
			body = append(body, `,"interrupted":true`...)
		}
	default:
		if len(members) > 0 {
			body = append(body, ',')
			body = append(body, members...)
		}
	}
	body = append(body, '}', '}')
	return fixLength(body, start)
}

func appendDelta(dst []byte, turnID, content string) []byte {
	dst = append(dst, `,"turnId":`...)
	dst = appendJSONString(dst, turnID)
	dst = append(dst, `,"content":`...)
	return appendJSONString(dst, content)
}

// fixLength writes the body length into the header reserved at the start
// of frame, then drops the header's unused digits by sliding the header
// right, so the body is never copied.
func fixLength(frame []byte, start int) []byte {
	var buf [20]byte
	digits := strconv.AppendInt(buf[:0], int64(len(frame)-start), 10)
	const prefix = "Content-Length: "
	header := len(prefix) + len(digits) + 4
	off := start - header
	copy(frame[off:], prefix)
	copy(frame[off+len(prefix):], digits)
	copy(frame[off+len(prefix)+len(digits):], "\r\n\r\n")
	return frame[off:]
}

// notificationFrame frames a notification that is not a session event.
// Method names are plain ASCII, so they need no escaping.
func notificationFrame(method string, params any) []byte {
	raw, err := json.Marshal(params)
	if err != nil {
		raw = []byte("{}")
	}
	const open, mid = `{"jsonrpc":"2.0","method":"`, `","params":`
	bodyLen := len(open) + len(method) + len(mid) + len(raw) + 1
	frame := make([]byte, 0, bodyLen+32)
	frame = append(frame, "Content-Length: "...)
	frame = strconv.AppendInt(frame, int64(bodyLen), 10)
	frame = append(frame, "\r\n\r\n"...)
	frame = append(frame, open...)
	frame = append(frame, method...)
	frame = append(frame, mid...)
	frame = append(frame, raw...)
	return append(frame, '}')
}
