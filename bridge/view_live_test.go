package bridge

import (
	"encoding/json"
	"strings"
	"testing"
)

// The terminal view folds reasoning to one line, prints live tool output
// by whole lines under the call (and not again with the result), and
// shows a plan as a checklist; usage prints nothing.
func TestAttachViewShowsLiveEvents(t *testing.T) {
	var out strings.Builder
	v := NewAttachView(&out)
	if err := v.Snapshot(json.RawMessage(`{"sessionId":"s1","cwd":"/w","model":"m","state":"idle","queue":{"entries":[],"paused":false},"pendingApprovals":[],"seq":0}`)); err != nil {
		t.Fatal(err)
	}
	ev := func(method, params string) { v.Event(method, json.RawMessage(params)) }
	ev("scv/turn/started", `{"seq":1,"turnId":"t1"}`)
	ev("scv/assistant/reasoning", `{"seq":2,"turnId":"t1","content":"let me "}`)
	ev("scv/assistant/reasoning", `{"seq":3,"turnId":"t1","content":"think"}`)
	ev("scv/plan/updated", `{"seq":4,"turnId":"t1","steps":[{"step":"read","status":"completed"},{"step":"fix","status":"in_progress"},{"step":"test","status":"pending"}]}`)
	ev("scv/tool/started", `{"seq":5,"turnId":"t1","callId":"c1","name":"shell"}`)
	ev("scv/tool/output", `{"seq":6,"turnId":"t1","callId":"c1","chunk":"ok pkg/a\nok pk"}`)
	ev("scv/tool/output", `{"seq":7,"turnId":"t1","callId":"c1","chunk":"g/b\nFAIL"}`)
	ev("scv/tool/completed", `{"seq":8,"turnId":"t1","callId":"c1","name":"shell","success":false,"output":"ok pkg/a\nok pkg/b\nFAIL\n[exit code: 1]","truncated":false}`)
	ev("scv/session/usage", `{"seq":9,"turnId":"t1","inputTokens":5,"outputTokens":1,"contextTokens":5,"contextMaxTokens":100}`)
	text := out.String()
	want := "── turn t1 started\n• thinking…\n• plan\n  [x] read\n  [>] fix\n  [ ] test\n• shell running\n" +
		"  │ ok pkg/a\n  │ ok pkg/b\n  │ FAIL\n• shell failed\n"
	if !strings.HasSuffix(text, want) {
		t.Fatalf("view:\n%s\nwant it to end with:\n%s", text, want)
	}
}
