package lsp_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"scv/internal/fakeopenai"
	"scv/lsp/lsptest"
	"scv/lsp/schema"
	"scv/runtime/config"
	"scv/runtime/session"
)

// steer sends scv/turn/steer.
func steer(ed *lsptest.Editor, sid, turn, prompt string) error {
	return ed.Call(schema.MethodTurnSteer, schema.TurnSteerParams{SessionID: sid, TurnID: turn, Prompt: &prompt}, nil)
}

// userContents are the user messages of a request, in order.
func userContents(req fakeopenai.RecordedRequest) []string {
	var out []string
	for _, m := range req.Messages {
		if m.Role == "user" {
			out = append(out, m.Content)
		}
	}
	return out
}

func TestSteerDuringAToolCallReachesTheNextRequest(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		// The tool call is held on its approval while the steer arrives.
		ed, sid, turn, req := heldOnApproval(t, env, fakeopenai.Reply{Chunks: []string{"done"}})
		if err := steer(ed, sid, turn, "name it b.txt next time"); err != nil {
			t.Fatal(err)
		}
		ed.Resolve(sid, req.ApprovalID, session.DecisionApprove)
		done := ed.ExpectTerminal(turn, schema.EvTurnCompleted)

		steered := ed.AwaitNotification(schema.EvTurnSteered, lsptest.ForTurn(turn), 0)
		completed := ed.AwaitNotification(schema.EvToolCompleted, lsptest.ForTurn(turn), 0)
		if steered.Str("prompt") != "name it b.txt next time" || steered.Index < completed.Index || steered.Index > done.Index {
			t.Errorf("turn/steered = %s (#%d), want it after tool/completed (#%d) and before the turn's end (#%d)",
				steered.Params, steered.Index, completed.Index, done.Index)
		}
		reqs, err := env.OpenAI.WaitRequests(2, env.Timeout)
		if err != nil {
			t.Fatal(err)
		}
		if got := userContents(reqs[0]); slices.Contains(got, "name it b.txt next time") {
			t.Errorf("the first request already holds the steer: %q", got)
		}
		// The next request: the prompt, the call and its result, then the steer.
		msgs := reqs[1].Messages
		last := msgs[len(msgs)-1]
		if last.Role != "user" || last.Content != "name it b.txt next time" || msgs[len(msgs)-2].Role != "tool" {
			t.Errorf("the request after the tool call ends with %+v, want the tool result then the steer", msgs[len(msgs)-2:])
		}

		// The turn has ended: the editor is told to queue instead.
		lsptest.ExpectError(t, steer(ed, sid, turn, "too late"), -32000, "turn_not_found")
	})
}

func TestSteerWhileTheModelAnswersContinuesTheTurn(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		hold, release := env.Hold()
		env.OpenAI.Enqueue(
			fakeopenai.Reply{Chunks: []string{"a final answer"}, Hold: hold},
			fakeopenai.Reply{Chunks: []string{"answer to the steer"}},
		)
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		turn := ed.StartTurn(sid, "first question").TurnID
		if _, err := env.OpenAI.WaitRequests(1, env.Timeout); err != nil {
			t.Fatal(err)
		}
		if err := steer(ed, sid, turn, "and also this"); err != nil {
			t.Fatal(err)
		}
		release()
		done := ed.ExpectTerminal(turn, schema.EvTurnCompleted)
		if done.Str("turnId") != turn {
			t.Fatalf("turn/completed = %s", done.Params)
		}
		reqs := env.OpenAI.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%d requests, want the answer and one more for the steer", len(reqs))
		}
		if got := userContents(reqs[1]); !slices.Equal(got, []string{"first question", "and also this"}) {
			t.Errorf("the second request's user messages = %q", got)
		}
		if msgs := reqs[1].Messages; msgs[len(msgs)-2].Content != "a final answer" {
			t.Errorf("the answer before the steer is missing: %+v", msgs)
		}
	})
}

func TestSteerIsStoredAndReplayed(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		hold, release := env.Hold()
		env.OpenAI.Enqueue(
			fakeopenai.Reply{Chunks: []string{"one"}, Hold: hold},
			fakeopenai.Reply{Chunks: []string{"two"}},
			fakeopenai.Reply{Chunks: []string{"three"}},
		)
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		turn := ed.StartTurn(sid, "start").TurnID
		if _, err := env.OpenAI.WaitRequests(1, env.Timeout); err != nil {
			t.Fatal(err)
		}
		if err := steer(ed, sid, turn, "steered text"); err != nil {
			t.Fatal(err)
		}
		release()
		ed.ExpectTerminal(turn, schema.EvTurnCompleted)
		ed.MustCall(schema.MethodSessionClose, schema.SessionRef{SessionID: sid}, nil)

		// Stored: the session's file holds the steer as an event.
		log, err := os.ReadFile(filepath.Join(config.SessionsDir(env.Home), sid+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(log), `"type":"turn.steered"`) || !strings.Contains(string(log), `"prompt":"steered text"`) {
			t.Errorf("the session file holds no turn.steered record:\n%s", log)
		}
		// Loaded again from that file, the model's history holds it.
		if _, err := ed.Attach(sid, nil); err != nil {
			t.Fatal(err)
		}
		next := ed.StartTurn(sid, "again").TurnID
		ed.ExpectTerminal(next, schema.EvTurnCompleted)
		reqs := env.OpenAI.Requests()
		if got := userContents(reqs[len(reqs)-1]); !slices.Equal(got, []string{"start", "steered text", "again"}) {
			t.Errorf("after a reload the history's user messages = %q", got)
		}
	})
}

func TestSteerRefusals(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		lsptest.ExpectError(t, steer(ed, sid, "no-such-turn", "hi"), -32000, "turn_not_found")
		err := ed.Call(schema.MethodTurnSteer, map[string]any{"sessionId": sid, "turnId": "t"}, nil)
		lsptest.ExpectError(t, err, -32602, "")
		err = ed.Call(schema.MethodTurnSteer, map[string]any{"sessionId": sid, "prompt": "x"}, nil)
		lsptest.ExpectError(t, err, -32602, "")
		lsptest.ExpectError(t, steer(ed, "missing", "t", "x"), -32000, "session_not_found")
	})
}

// A steer still waiting when its turn is cancelled is not lost: it goes to
// the front of the queue, announced like any queued prompt after the
// turn's end (a window that attaches sees it there), and runs as the next
// turn once the paused session resumes.
func TestASteerOfACancelledTurnRunsNextFromTheQueue(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		// The tool call is held on its approval while the steer arrives.
		ed, sid, turn, _ := heldOnApproval(t, env,
			fakeopenai.Reply{Chunks: []string{"steer answered"}}, fakeopenai.Reply{Chunks: []string{"queued answered"}})
		if res := ed.StartTurn(sid, "queued before"); res.Status != "queued" {
			t.Fatalf("turn/start while running = %+v", res)
		}
		if err := steer(ed, sid, turn, "use b.txt instead"); err != nil {
			t.Fatal(err)
		}
		ed.MustCall(schema.MethodSessionPause, schema.SessionPauseParams{SessionID: sid, Paused: schema.Ptr(true)}, nil)
		ed.MustCall(schema.MethodTurnCancel, schema.TurnCancelParams{SessionID: sid, TurnID: turn}, nil)
		cancelled := ed.ExpectTerminal(turn, schema.EvTurnCancelled)

		enq := ed.AwaitNotification(schema.EvQueueEnqueued, lsptest.All(lsptest.ForSession(sid), func(n lsptest.Note) bool {
			return strings.Contains(string(n.Params), `"prompt":"use b.txt instead"`)
		}), 0)
		var p schema.QueueEnqueuedParams
		if err := enq.Decode(&p); err != nil {
			t.Fatal(err)
		}
		if p.Position != 0 || p.Entry.QueueID == "" || p.Entry.Revision != 1 || enq.Index < cancelled.Index {
			t.Errorf("queue/enqueued = %s (#%d), want the steer at position 0 after turn/cancelled (#%d)", enq.Params, enq.Index, cancelled.Index)
		}
		// It is at the front of the queue, for a window that attaches too.
		queues := []session.QueueState{queueOf(t, ed, sid)}
		if env.ServedByDaemon() {
			other := connect(t, env)
			snap, err := other.Attach(sid, nil)
			if err != nil {
				t.Fatal(err)
			}
			queues = append(queues, snap.Queue)
		}
		for _, q := range queues {
			var prompts []string
			for _, e := range q.Entries {
				prompts = append(prompts, e.Prompt)
			}
			if !slices.Equal(prompts, []string{"use b.txt instead", "queued before"}) || !q.Paused {
				t.Errorf("the queue holds %q (paused %v), want the steer first", prompts, q.Paused)
			}
		}

		ed.MustCall(schema.MethodSessionPause, schema.SessionPauseParams{SessionID: sid, Paused: schema.Ptr(false)}, nil)
		next := ed.AwaitNotification(schema.EvTurnStarted, lsptest.WithStr("queueId", p.Entry.QueueID), 0)
		if next.Str("prompt") != "use b.txt instead" {
			t.Errorf("turn/started = %s", next.Params)
		}
		ed.ExpectTerminal(next.TurnID, schema.EvTurnCompleted)
		reqs, err := env.OpenAI.WaitRequests(2, env.Timeout)
		if err != nil {
			t.Fatal(err)
		}
		if got := userContents(reqs[1]); len(got) == 0 || got[len(got)-1] != "use b.txt instead" {
			t.Errorf("the next turn's request ends with the user messages %q, want the steer last", got)
		}
		last := ed.AwaitNotification(schema.EvTurnStarted, lsptest.WithStr("prompt", "queued before"), 0)
		ed.ExpectTerminal(last.TurnID, schema.EvTurnCompleted)
		if env.ReadFile("a.txt") != "" {
			t.Errorf("the cancelled call wrote a.txt")
		}
	})
}
