package bridge

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestAttachViewRendersSessionInOrder(t *testing.T) {
	var out strings.Builder
	v := NewAttachView(&out)
	ev := func(method, params string) { v.Event(method, json.RawMessage(params)) }
	// Replayed events can arrive before the snapshot is shown.
	ev("scv/turn/started", `{"sessionId":"s1","seq":1,"turnId":"t1"}`)
	ev("scv/assistant/delta", `{"seq":2,"turnId":"t1","content":"Hel"}`)
	if out.Len() != 0 {
		t.Fatalf("printed before the snapshot: %q", out.String())
	}
	err := v.Snapshot(json.RawMessage(`{"sessionId":"s1","cwd":"/w","model":"m","state":"running","turnId":"t1",
		"queue":{"entries":[],"paused":false},"pendingApprovals":[{"turnId":"t1","approvalId":"a1","name":"shell","risk":"exec","cwd":"/w","summary":"rm -rf build"}],"seq":4}`))
	if err != nil {
		t.Fatal(err)
	}
	ev("scv/assistant/delta", `{"seq":3,"turnId":"t1","content":"lo \u001b[2Jworld"}`)
	if len(v.PendingApprovals()) != 0 {
		t.Fatal("the snapshot's approval was shown before the replay reached the snapshot")
	}
	ev("scv/approval/requested", `{"seq":4,"turnId":"t1","approvalId":"a1","name":"shell","risk":"exec","cwd":"/w","summary":"rm -rf build"}`)
	if got := v.PendingApprovals(); len(got) != 1 || got[0].ApprovalID != "a1" {
		t.Fatalf("pending = %+v", got)
	}
	ev("scv/approval/resolved", `{"seq":6,"turnId":"t1","approvalId":"a1","decision":"approve"}`)
	ev("scv/tool/completed", `{"seq":7,"turnId":"t1","callId":"c","name":"shell","success":true,"output":"ok\n","truncated":false}`)
	ev("scv/assistant/completed", `{"seq":8,"turnId":"t1","content":"Hello world"}`)
	ev("scv/turn/completed", `{"seq":9,"turnId":"t1","steps":2,"usage":{"inputTokens":10,"outputTokens":5},"changesPending":true}`)
	ev("scv/turn/changes", `{"sessionId":"s1","seq":10,"turnId":"t1","files":[{"path":"a\u001b.go","added":2,"removed":1}]}`)
	ev("scv/session/closed", `{"seq":11}`)
	select {
	case <-v.Closed():
	default:
		t.Fatal("Closed not signalled")
	}
	if len(v.PendingApprovals()) != 0 {
		t.Fatal("resolved approval still pending")
	}
	want := []string{
		"session s1  model m  cwd /w",
		"state running (turn t1), 0 queued, last event 4",
		"── turn t1 started",
		`Hello \x1b[2Jworld`,
		"? approval a1: shell (exec) in /w: rm -rf build",
		"✓ approval a1: approve",
		"• shell done",
		"  ok",
		"── turn t1 completed in 2 steps, 10 tokens in, 5 out",
		"• turn t1 changed 1 file(s):",
		`  a\x1b.go  +2 −1`,
		"  undo: scv undo s1 t1",
		"• session closed",
	}
	text := out.String()
	at := 0
	for _, w := range want {
		i := strings.Index(text[at:], w)
		if i < 0 {
			t.Fatalf("missing %q (in order) in:\n%s", w, text)
		}
		at += i + len(w)
	}
	if strings.Count(text, "? approval a1") != 1 {
		t.Fatalf("approval prompt shown more than once:\n%s", text)
	}
	if strings.ContainsRune(text, '\x1b') {
		t.Fatal("a terminal escape reached the output")
	}
}

// A request whose rule waits for confirmation shows its notice, made
// safe, before the answers it offers, and says none of them confirms it.
func TestAttachViewShowsAHeldRulesNoticeBeforeTheAnswers(t *testing.T) {
	var out strings.Builder
	v := NewAttachView(&out)
	if err := v.Snapshot(json.RawMessage(`{"sessionId":"s1","cwd":"/w","model":"m","state":"running","turnId":"t1","queue":{"entries":[],"paused":false},"pendingApprovals":[],"seq":0}`)); err != nil {
		t.Fatal(err)
	}
	v.Event("scv/approval/requested", json.RawMessage(`{"seq":1,"turnId":"t1","approvalId":"a1","name":"shell","risk":"exec","cwd":"/w","summary":"touch x",
		"suggestedRule":"shell:touch *","confirmsRule":true,"notice":"the rule \"shell:touch *\" in /h/config\u001b[2J.toml would allow this call"}`))
	text := out.String()
	notice := strings.Index(text, `note: the rule "shell:touch *" in /h/config\x1b[2J.toml would allow this call`)
	answers := strings.Index(text, "answer y (approve)")
	if notice < 0 || answers < notice {
		t.Fatalf("the notice is not shown, escaped, before the answers:\n%s", text)
	}
	if !strings.Contains(text[notice:answers], "this prompt cannot confirm it") {
		t.Errorf("the view does not say its answers leave the rule unconfirmed:\n%s", text)
	}
	if strings.ContainsRune(text, '\x1b') {
		t.Fatal("a terminal escape reached the output")
	}
}

// TestAttachViewShowsTheNoticeATurnEndsWith: a turn's terminal event may
// carry a notice (the session's file is nearly full); attach dropped it,
// so the next prompt was refused with nothing shown before. It is shown
// under the turn's end, escaped for the terminal.
func TestAttachViewShowsTheNoticeATurnEndsWith(t *testing.T) {
	for _, end := range []struct{ method, params string }{
		{"scv/turn/completed", `"steps":1,"usage":{"inputTokens":1,"outputTokens":1}`},
		{"scv/turn/cancelled", `"changesPending":false`},
		{"scv/turn/failed", `"code":"timeout","message":"slow"`},
	} {
		var out strings.Builder
		v := NewAttachView(&out)
		if err := v.Snapshot(json.RawMessage(`{"sessionId":"s1","cwd":"/w","model":"m","state":"idle","queue":{"entries":[],"paused":false},"pendingApprovals":[],"seq":0}`)); err != nil {
			t.Fatal(err)
		}
		v.Event("scv/turn/started", json.RawMessage(`{"sessionId":"s1","seq":1,"turnId":"t1"}`))
		v.Event(end.method, json.RawMessage(`{"sessionId":"s1","seq":2,"turnId":"t1",`+end.params+`,"notice":"the file is full\u001b[2J; fork"}`))
		if text := out.String(); !strings.Contains(text, `── turn t1 `) || !strings.Contains(text, `note: the file is full\x1b[2J; fork`) {
			t.Fatalf("%s: the notice is not shown:\n%s", end.method, text)
		}
	}
}
