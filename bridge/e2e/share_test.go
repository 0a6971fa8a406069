package e2e

import (
	"encoding/json"
	"slices"
	"testing"

	"scv/internal/fakeopenai"
	"scv/lsp/client"
	"scv/runtime/provider"
	"scv/runtime/session"
)

// Two editor windows (two `scv lsp` bridges) share one daemon session:
// B attaches mid-turn and catches up, B answers A's approval, A queues and
// B reorders, and both end with the same events in the same order.
func TestTwoWindowsShareOneSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.daemon()

	a := e.bridge("window A", "--daemon=auto")
	if !a.initialize().Capabilities.Experimental.SCV.Daemon {
		t.Fatal("window A: initialize did not report capabilities.experimental.scv.daemon = true through the bridge")
	}
	sid := a.startSession(map[string]any{"cwd": e.work, "approvalPolicy": "on-risk"}).SessionID

	hold, release := e.hold()
	e.openai.Enqueue(
		fakeopenai.Reply{ToolCalls: []provider.ToolCall{{ID: "call_1", Name: "shell", Arguments: `{"command":"echo shared"}`}}},
		fakeopenai.Reply{Chunks: []string{"still ", "working"}, Hold: hold},
	)
	turn := a.startTurn(sid, "run echo")
	if turn.Status != "started" {
		t.Fatalf("turn/start answered %+v, want a started turn", turn)
	}
	requested := a.awaitNote("scv/approval/requested", nil)
	var approval session.ApprovalRequest
	if err := json.Unmarshal(requested.Params, &approval); err != nil {
		t.Fatal(err)
	}

	// Window B finds the session and attaches mid-turn, from the start.
	b := e.bridge("window B", "--daemon=auto")
	b.initialize()
	var list struct {
		Sessions []session.Summary `json:"sessions"`
	}
	b.mustCall("scv/session/list", map[string]any{}, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].SessionID != sid || list.Sessions[0].State != "running" || list.Sessions[0].Clients != 1 {
		t.Fatalf("window B lists %+v, want session %s running with 1 client", list.Sessions, sid)
	}
	snap := b.attach(sid, 0)
	if snap.State != "running" || snap.TurnID != turn.TurnID {
		t.Fatalf("attach snapshot: state %q turn %q, want running turn %s", snap.State, snap.TurnID, turn.TurnID)
	}
	if len(snap.PendingApprovals) != 1 || snap.PendingApprovals[0].ApprovalID != approval.ApprovalID {
		t.Fatalf("attach snapshot's pending approvals are %+v, want %s", snap.PendingApprovals, approval.ApprovalID)
	}
	// The replay: every event up to the snapshot's seq, the approval among them.
	b.await("the replay up to the snapshot", func(notes []note, _ map[string]int) bool {
		return len(sessionEvents(notes, sid)) >= int(snap.Seq)
	})
	replayed := sessionEvents(b.all(), sid)[:snap.Seq]
	if i := slices.IndexFunc(replayed, func(n note) bool { return n.Method == "scv/approval/requested" }); i < 0 || replayed[i].Seq != approval.Seq {
		t.Fatalf("the replay did not carry scv/approval/requested at seq %d:\n%s", approval.Seq, b.dump())
	}

	// B approves; both windows hear it; A, answering late, loses.
	b.mustCall("scv/approval/resolve", map[string]any{"sessionId": sid, "approvalId": approval.ApprovalID, "decision": "approve"}, nil)
	for _, w := range []*window{a, b} {
		resolved := w.awaitNote("scv/approval/resolved", nil)
		var p struct{ ApprovalID, Decision string }
		json.Unmarshal(resolved.Params, &p)
		if p.ApprovalID != approval.ApprovalID || p.Decision != "approve" {
			t.Fatalf("%s: approval/resolved %s, want %s approved", w.name, resolved.Params, approval.ApprovalID)
		}
	}
	err := a.call("scv/approval/resolve", map[string]any{"sessionId": sid, "approvalId": approval.ApprovalID, "decision": "deny"}, nil)
	if e, ok := client.AsError(err); !ok || e.DataCode() != "approval_not_found" {
		t.Fatalf("a second resolve answered %v, want approval_not_found", err)
	}
	for _, w := range []*window{a, b} {
		w.awaitNote("scv/assistant/delta", func(n note) bool { return jsonField(n.Params, "content") == "working" })
	}

	// A queues two prompts while the turn runs; B moves the second first.
	q1 := a.startTurn(sid, "first queued")
	q2 := a.startTurn(sid, "second queued")
	if q1.Status != "queued" || q2.Status != "queued" {
		t.Fatalf("turn/start while running answered %+v and %+v, want queued", q1, q2)
	}
	b.awaitCount("scv/queue/enqueued", 2)
	var moved session.MoveResult
	b.mustCall("scv/queue/move", map[string]any{
		"sessionId": sid, "queueId": q2.Entry.QueueID, "revision": q2.Entry.Revision, "beforeQueueId": q1.Entry.QueueID,
	}, &moved)
	if moved.Position != 0 {
		t.Fatalf("queue/move answered %+v, want position 0", moved)
	}
	want := []string{q2.Entry.QueueID, q1.Entry.QueueID}
	for _, w := range []*window{a, b} {
		w.awaitNote("scv/queue/moved", nil)
		if got := queueIDs(w.queue(sid)); !slices.Equal(got, want) {
			t.Fatalf("%s: queue/list is %v, want %v", w.name, got, want)
		}
	}
	if moved.Revision != q2.Entry.Revision {
		err := a.call("scv/queue/update", map[string]any{"sessionId": sid, "queueId": q2.Entry.QueueID, "revision": q2.Entry.Revision, "prompt": "stale"}, nil)
		if e, ok := client.AsError(err); !ok || e.DataCode() != "queue_conflict" {
			t.Fatalf("an update at the revision before the move answered %v, want queue_conflict", err)
		}
	}

	// The held turn ends; the queue runs in B's order; both see all of it.
	release()
	for _, w := range []*window{a, b} {
		w.awaitCount("scv/turn/completed", 3)
		var order []string
		for _, n := range w.all() {
			if n.Method == "scv/queue/dequeued" {
				order = append(order, jsonField(n.Params, "queueId"))
			}
		}
		if !slices.Equal(order, want) {
			t.Fatalf("%s: dequeued %v, want %v", w.name, order, want)
		}
	}
	na := checkSeqs(t, a.name, a.all(), sid, 1)
	nb := checkSeqs(t, b.name, b.all(), sid, 1)
	if na != nb {
		t.Fatalf("window A received %d events and window B %d", na, nb)
	}
	ea, eb := sessionEvents(a.all(), sid), sessionEvents(b.all(), sid)
	for i := range ea {
		if ea[i].Method != eb[i].Method || string(ea[i].Params) != string(eb[i].Params) {
			t.Fatalf("event %d differs: A %s %s, B %s %s", i+1, ea[i].Method, ea[i].Params, eb[i].Method, eb[i].Params)
		}
	}
}

func queueIDs(q session.QueueState) []string {
	var ids []string
	for _, e := range q.Entries {
		ids = append(ids, e.QueueID)
	}
	return ids
}

// jsonField returns a string field of a JSON object ("" when absent).
func jsonField(raw json.RawMessage, key string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	var s string
	json.Unmarshal(m[key], &s)
	return s
}
