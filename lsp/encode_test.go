package lsp

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"scv/lsp/schema"
	"scv/lsp/wire"
	"scv/runtime/session"
)

// allPayloads holds one value of every runtime event type.
var allPayloads = []session.Payload{
	session.TurnStarted{TurnID: "t1", Prompt: "p", Context: []session.ContextRef{{URI: "file:///a"}}},
	session.AssistantDelta{TurnID: "t1", Content: "a\"b\x01"},
	session.AssistantCompleted{TurnID: "t1", Content: "done"},
	session.ToolProposed{TurnID: "t1", CallID: "c", Name: "n", Arguments: "{}"},
	session.ToolStarted{TurnID: "t1"},
	session.ToolCompleted{TurnID: "t1", Output: "<out>"},
	session.ApprovalRequested{Approval: session.Approval{TurnID: "t1", ApprovalID: "a"}},
	session.ApprovalResolved{TurnID: "t1"},
	session.ContextCompacted{TurnID: "t1"},
	session.TurnCompleted{TurnID: "t1"},
	session.TurnCancelled{TurnID: "t1"},
	session.TurnFailed{TurnID: "t1"},
	session.QueueSnapshot{},
	session.QueueEnqueued{},
	session.QueueUpdated{},
	session.QueueMoved{},
	session.QueueRemoved{},
	session.QueueDequeued{},
	session.SessionPaused{Paused: true},
	session.SessionCleared{},
	session.SessionClosed{},
	session.SessionRenamed{Title: "t"},
	session.SessionRestored{Queued: 1, Paused: true},
	session.McpStatus{Name: "files", State: "failed", Error: "exec: \"x\": not found"},
	session.TurnSteered{TurnID: "t1", Prompt: "and also \"this\""},
	session.SessionConfigured{Model: "m", ApprovalPolicy: "always"},
	session.AssistantReasoning{TurnID: "t1", Content: "hm\"m\x02"},
	session.ToolOutput{TurnID: "t1", CallID: "c", Chunk: "line\n"},
	session.PlanUpdated{TurnID: "t1", Steps: []session.PlanStep{{Step: "s", Status: session.PlanPending}}},
	session.SessionUsage{TurnID: "t1", InputTokens: 1, OutputTokens: 2, ContextTokens: 3, ContextMaxTokens: 4},
	session.TurnChanges{TurnID: "t1", Files: []session.FileStat{{Path: "a.go", Added: 1, Removed: 2}}},
	session.TurnReverted{TurnID: "t1", TurnIDs: []string{"t1", "t2"}},
}

func TestEveryEventEncodesAsItsNotification(t *testing.T) {
	var methods []string
	for _, p := range allPayloads {
		ev := session.Event{SessionID: "s\"1", Seq: 42, Payload: p}
		frame := encodeEvent(ev)
		body, err := wire.NewReader(bytes.NewReader(frame), 1<<20).ReadFrame()
		if err != nil {
			t.Fatalf("%T: %v in %q", p, err, frame)
		}
		var msg struct {
			JSONRPC string          `json:"jsonrpc"`
			Method  string          `json:"method"`
			Params  json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(body, &msg); err != nil || msg.JSONRPC != "2.0" {
			t.Fatalf("%T: %v in %s", p, err, body)
		}
		var head schema.EventHeader
		if json.Unmarshal(msg.Params, &head); head.SessionID != "s\"1" || head.Seq != 42 {
			t.Errorf("%T: header %+v in %s", p, head, msg.Params)
		}
		if !strings.HasPrefix(string(msg.Params), `{"sessionId":"s\"1","seq":42`) {
			t.Errorf("%T: params do not start with the header: %s", p, msg.Params)
		}
		// The members are the runtime value's own JSON.
		want, _ := json.Marshal(p)
		var gotMembers, wantMembers map[string]any
		_ = json.Unmarshal(msg.Params, &gotMembers)
		_ = json.Unmarshal(want, &wantMembers)
		delete(gotMembers, "sessionId")
		delete(gotMembers, "seq")
		g, _ := json.Marshal(gotMembers)
		w, _ := json.Marshal(wantMembers)
		if !bytes.Equal(g, w) {
			t.Errorf("%T: members %s, want %s", p, g, w)
		}
		methods = append(methods, msg.Method)
	}
	want := slices.DeleteFunc(slices.Clone(schema.Notifications), func(m string) bool {
		return m == schema.EvSessionLagged || m == schema.EvSessionGap // per connection, not events
	})
	if !slices.Equal(methods, want) {
		t.Errorf("events encode as\n%v\nwant the schema's\n%v", methods, want)
	}
}
