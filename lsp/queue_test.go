package lsp_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"scv/internal/fakeopenai"
	"scv/lsp/lsptest"
	"scv/lsp/schema"
	"scv/runtime/session"
)

// startHeld starts a turn whose model answer streams one chunk and then
// holds until release is called, so the turn stays running.
func startHeld(t *testing.T, env *lsptest.Env, ed *lsptest.Editor, sid string) (turnID string, release func()) {
	t.Helper()
	hold, release := env.Hold()
	env.OpenAI.Enqueue(fakeopenai.Reply{Chunks: []string{"working"}, Hold: hold})
	turnID = ed.StartTurn(sid, "a long task").TurnID
	ed.AwaitNotification(schema.EvAssistantDelta, lsptest.ForTurn(turnID), 0)
	return turnID, release
}

func queueOf(t *testing.T, ed *lsptest.Editor, sid string) session.QueueState {
	t.Helper()
	var q session.QueueState
	ed.MustCall("scv/queue/list", map[string]any{"sessionId": sid}, &q)
	return q
}

func queueIDs(q session.QueueState) []string {
	ids := []string{}
	for _, e := range q.Entries {
		ids = append(ids, e.QueueID)
	}
	return ids
}

func TestQueueWhileRunning(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		first, release := startHeld(t, env, ed, sid)

		err := ed.Call("scv/session/clear", map[string]any{"sessionId": sid}, nil)
		lsptest.ExpectError(t, err, -32000, "turn_active")

		var entries []session.QueueEntry
		for i, prompt := range []string{"second", "third", "fourth"} {
			res := ed.StartTurn(sid, prompt)
			if res.Status != "queued" || res.Entry == nil || res.Position == nil || *res.Position != i || res.TurnID != "" {
				t.Fatalf("turn/start while running = %+v, want queued at position %d", res, i)
			}
			if e := *res.Entry; e.QueueID == "" || e.Revision != 1 || e.Prompt != prompt || e.Submitter == "" {
				t.Fatalf("queued entry = %+v", e)
			}
			entries = append(entries, *res.Entry)
			ed.AwaitNotification(schema.EvQueueEnqueued, func(n lsptest.Note) bool {
				return strings.Contains(string(n.Params), `"queueId":"`+res.Entry.QueueID+`"`)
			}, 0)
		}
		q1, q2, q3 := entries[0].QueueID, entries[1].QueueID, entries[2].QueueID

		// update with the right revision bumps it.
		var upd struct {
			Entry session.QueueEntry `json:"entry"`
		}
		ed.MustCall("scv/queue/update", map[string]any{"sessionId": sid, "queueId": q1, "revision": 1, "prompt": "second, revised"}, &upd)
		if upd.Entry.Revision != 2 || upd.Entry.Prompt != "second, revised" {
			t.Errorf("queue/update = %+v, want revision 2", upd.Entry)
		}
		ed.AwaitNotification(schema.EvQueueUpdated, nil, 0)

		// Stale revisions conflict and change nothing.
		before := queueOf(t, ed, sid)
		for method, params := range map[string]map[string]any{
			"scv/queue/update": {"prompt": "stale"},
			"scv/queue/move":   {},
			"scv/queue/remove": {},
		} {
			params["sessionId"], params["queueId"], params["revision"] = sid, q1, 1
			lsptest.ExpectError(t, ed.Call(method, params, nil), -32000, "queue_conflict")
			params["queueId"] = "q-unknown"
			lsptest.ExpectError(t, ed.Call(method, params, nil), -32000, "queue_not_found")
		}
		lsptest.ExpectError(t, ed.Call("scv/queue/move", map[string]any{"sessionId": sid, "queueId": q1, "revision": 2, "beforeQueueId": "q-unknown"}, nil), -32000, "queue_not_found")
		if after := queueOf(t, ed, sid); !reflect.DeepEqual(after, before) {
			t.Fatalf("refused edits changed the queue:\nbefore %+v\nafter  %+v", before, after)
		}

		// Move q3 to the front, then q1 to the end.
		var mv session.MoveResult
		ed.MustCall("scv/queue/move", map[string]any{"sessionId": sid, "queueId": q3, "revision": 1, "beforeQueueId": q1}, &mv)
		if mv != (session.MoveResult{QueueID: q3, Revision: 2, Position: 0}) {
			t.Errorf("move before q1 = %+v", mv)
		}
		ed.MustCall("scv/queue/move", map[string]any{"sessionId": sid, "queueId": q1, "revision": 2}, &mv)
		if mv != (session.MoveResult{QueueID: q1, Revision: 3, Position: 2}) {
			t.Errorf("move to the end = %+v", mv)
		}
		if got := queueIDs(queueOf(t, ed, sid)); !reflect.DeepEqual(got, []string{q3, q2, q1}) {
			t.Errorf("queue = %v, want %v", got, []string{q3, q2, q1})
		}
		// A self-move is a no-op.
		ed.MustCall("scv/queue/move", map[string]any{"sessionId": sid, "queueId": q2, "revision": 1, "beforeQueueId": q2}, &mv)
		if mv != (session.MoveResult{QueueID: q2, Revision: 1, Position: 1}) {
			t.Errorf("self-move = %+v, want unchanged", mv)
		}
		if got := queueIDs(queueOf(t, ed, sid)); !reflect.DeepEqual(got, []string{q3, q2, q1}) {
			t.Errorf("queue after a self-move = %v", got)
		}

		var rm session.RemoveResult
		ed.MustCall("scv/queue/remove", map[string]any{"sessionId": sid, "queueId": q2, "revision": 1}, &rm)
		if rm != (session.RemoveResult{QueueID: q2, Revision: 1}) {
			t.Errorf("remove = %+v", rm)
		}
		ed.AwaitNotification(schema.EvQueueRemoved, nil, 0)

		// Bad prompts are refused whether the turn would start or queue.
		for _, prompt := range []string{"", "  \n", strings.Repeat("x", session.MaxPromptBytes+1)} {
			err := ed.Call("scv/turn/start", map[string]any{"sessionId": sid, "prompt": prompt}, nil)
			lsptest.ExpectError(t, err, -32000, "invalid_prompt")
			err = ed.Call("scv/queue/update", map[string]any{"sessionId": sid, "queueId": q3, "revision": 2, "prompt": prompt}, nil)
			lsptest.ExpectError(t, err, -32000, "invalid_prompt")
		}
		if got := queueIDs(queueOf(t, ed, sid)); !reflect.DeepEqual(got, []string{q3, q1}) {
			t.Fatalf("queue = %v, want %v", got, []string{q3, q1})
		}

		// Paused: the running turn ends and the queue stays.
		var paused struct {
			Paused bool `json:"paused"`
		}
		ed.MustCall("scv/session/pause", map[string]any{"sessionId": sid, "paused": true}, &paused)
		if !paused.Paused {
			t.Errorf("pause answered %+v", paused)
		}
		ed.AwaitNotification(schema.EvSessionPaused, nil, 0)
		release()
		ed.ExpectTerminal(first, schema.EvTurnCompleted)
		if q := queueOf(t, ed, sid); !q.Paused || len(q.Entries) != 2 {
			t.Fatalf("after the turn ended while paused: %+v", q)
		}
		if n := len(ed.Notes(schema.EvQueueDequeued, nil)); n != 0 {
			t.Fatalf("a paused session dequeued %d prompts", n)
		}

		// Resumed: q3 then q1 start by themselves.
		ed.MustCall("scv/session/pause", map[string]any{"sessionId": sid, "paused": false}, &paused)
		var turns []string
		for _, qid := range []string{q3, q1} {
			deq := ed.AwaitNotification(schema.EvQueueDequeued, lsptest.WithStr("queueId", qid), 0)
			started := ed.AwaitNotification(schema.EvTurnStarted, lsptest.WithStr("queueId", qid), 0)
			if deq.TurnID == "" || started.TurnID != deq.TurnID || started.Index < deq.Index {
				t.Fatalf("dequeued %s then started %s", deq, started)
			}
			ed.ExpectTerminal(started.TurnID, schema.EvTurnCompleted)
			turns = append(turns, started.TurnID)
		}
		if q := queueOf(t, ed, sid); len(q.Entries) != 0 || q.Paused {
			t.Errorf("queue after draining = %+v", q)
		}
		reqs, err := env.OpenAI.WaitRequests(3, env.Timeout)
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range []string{"fourth", "second, revised"} {
			msgs := reqs[i+1].Messages
			if last := msgs[len(msgs)-1]; last.Role != "user" || last.Content != want {
				t.Errorf("request %d ends with %+v, want the prompt %q", i+1, last, want)
			}
		}
		// The session can be cleared once idle.
		ed.MustCall("scv/session/clear", map[string]any{"sessionId": sid}, nil)
		ed.AwaitNotification(schema.EvSessionCleared, nil, 0)
	})
}

func TestQueueLimit(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		turn, _ := startHeld(t, env, ed, sid)
		// The submitter is the queuing request's JSON-RPC id, as a string.
		resp := ed.RawCall(`{"jsonrpc":"2.0","id":"editor-7","method":"scv/turn/start","params":{"sessionId":"`+sid+`","prompt":"from a string id"}}`, `"editor-7"`)
		var res session.TurnStart
		if err := json.Unmarshal(resp.Result, &res); err != nil || res.Entry == nil || res.Entry.Submitter != "editor-7" {
			t.Fatalf("turn/start with id \"editor-7\" = %s %v", resp.Result, resp.Err())
		}
		for i := 1; i < session.MaxQueueItems; i++ {
			if res := ed.StartTurn(sid, "queued prompt"); res.Status != "queued" || *res.Position != i {
				t.Fatalf("prompt %d: %+v", i, res)
			}
		}
		err := ed.Call("scv/turn/start", map[string]any{"sessionId": sid, "prompt": "one too many"}, nil)
		lsptest.ExpectError(t, err, -32000, "queue_limit")
		if q := queueOf(t, ed, sid); len(q.Entries) != session.MaxQueueItems {
			t.Fatalf("queue holds %d entries, want %d", len(q.Entries), session.MaxQueueItems)
		}

		// Pause so cancelling starts nothing, then clear the queue.
		ed.MustCall("scv/session/pause", map[string]any{"sessionId": sid, "paused": true}, nil)
		ed.MustCall("scv/turn/cancel", map[string]any{"sessionId": sid, "turnId": turn}, nil)
		ed.ExpectTerminal(turn, schema.EvTurnCancelled)
		ed.MustCall("scv/session/clear", map[string]any{"sessionId": sid}, nil)
		snapshot := ed.AwaitNotification(schema.EvQueueSnapshot, nil, 0)
		if q := queueOf(t, ed, sid); len(q.Entries) != 0 || !strings.Contains(string(snapshot.Params), `"entries":[]`) {
			t.Errorf("after clear: queue %+v, snapshot %s", q, snapshot.Params)
		}
	})
}

func TestQueueByteLimit(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		startHeld(t, env, ed, sid)
		big := strings.Repeat("y", session.MaxPromptBytes)
		fit := session.MaxQueueBytes / session.MaxPromptBytes
		var last session.QueueEntry
		for i := 0; i < fit; i++ {
			res := ed.StartTurn(sid, big)
			if res.Status != "queued" {
				t.Fatalf("prompt %d: %+v", i, res)
			}
			last = *res.Entry
		}
		err := ed.Call("scv/turn/start", map[string]any{"sessionId": sid, "prompt": big}, nil)
		lsptest.ExpectError(t, err, -32000, "queue_limit")
		// Shrinking an entry makes room; a prompt over the limit is refused.
		ed.MustCall("scv/queue/update", map[string]any{"sessionId": sid, "queueId": last.QueueID, "revision": last.Revision, "prompt": "short"}, nil)
		err = ed.Call("scv/queue/update", map[string]any{"sessionId": sid, "queueId": last.QueueID, "revision": last.Revision + 1, "prompt": big + "z"}, nil)
		lsptest.ExpectError(t, err, -32000, "invalid_prompt")
		if res := ed.StartTurn(sid, "small"); res.Status != "queued" || *res.Position != fit {
			t.Errorf("after shrinking an entry: %+v", res)
		}
	})
}

// The reply to scv/turn/start reaches the client before the events it
// causes, so a client knows the turn or queue id before it sees it used.
func TestTurnStartReplyPrecedesItsEvents(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		hold, release := env.Hold()
		defer release()
		env.OpenAI.Enqueue(fakeopenai.Reply{Chunks: []string{"working"}, Hold: hold})

		mark := ed.Frames()
		started := ed.RawCall(`{"jsonrpc":"2.0","id":"t1","method":"scv/turn/start","params":{"sessionId":"`+sid+`","prompt":"go"}}`, `"t1"`)
		var res session.TurnStart
		if err := json.Unmarshal(started.Result, &res); err != nil || res.Status != "started" {
			t.Fatalf("turn/start = %s %v", started.Result, started.Error)
		}
		ev := ed.AwaitNotification(schema.EvTurnStarted, lsptest.ForTurn(res.TurnID), 0)
		if ev.Index < started.Index || started.Index < mark {
			t.Fatalf("turn/started (frame %d) arrived before its turn/start reply (frame %d)", ev.Index, started.Index)
		}

		queued := ed.RawCall(`{"jsonrpc":"2.0","id":"t2","method":"scv/turn/start","params":{"sessionId":"`+sid+`","prompt":"later"}}`, `"t2"`)
		if err := json.Unmarshal(queued.Result, &res); err != nil || res.Status != "queued" {
			t.Fatalf("second turn/start = %s %v", queued.Result, queued.Error)
		}
		enq := ed.AwaitNotification(schema.EvQueueEnqueued, nil, 0)
		if enq.Index < queued.Index {
			t.Fatalf("queue/enqueued (frame %d) arrived before its turn/start reply (frame %d)", enq.Index, queued.Index)
		}
	})
}
