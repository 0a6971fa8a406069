package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"scv/internal/fakeopenai"
	"scv/lsp/client"
	"scv/lsp/schema"
	"scv/runtime/config"
	"scv/runtime/session"
)

// list calls scv/session/list and returns its rows by id.
func (w *window) list() map[string]session.Summary {
	w.t.Helper()
	var res schema.SessionListResult
	w.mustCall(schema.MethodSessionList, schema.SessionListParams{}, &res)
	out := map[string]session.Summary{}
	for _, s := range res.Sessions {
		out[s.SessionID] = s
	}
	return out
}

// attachFull attaches with the whole stored transcript replayed.
func (w *window) attachFull(sid string) session.Snapshot {
	w.t.Helper()
	var snap session.Snapshot
	w.mustCall(schema.MethodSessionAttach, schema.SessionAttachParams{SessionID: sid, Replay: schema.ReplayFull}, &snap)
	return snap
}

func (w *window) has(method string, pred func(note) bool) bool {
	return slices.ContainsFunc(w.all(), func(n note) bool { return n.Method == method && (pred == nil || pred(n)) })
}

func forTurn(id string) func(note) bool {
	return func(n note) bool { return jsonField(n.Params, "turnId") == id }
}

// lastMessages returns the roles and contents of the newest model request.
func lastMessages(t testing.TB, e *env, n int) []string {
	t.Helper()
	reqs, err := e.openai.WaitRequests(n, waitTimeout)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range reqs[n-1].Messages[1:] { // after the system prompt
		out = append(out, m.Role+": "+m.Content)
	}
	return out
}

// kill -9 of the daemon with a turn running and two prompts queued (one
// edited): the new daemon lists the session stored; attaching with a full
// replay shows every completed turn, the queue holds both prompts with the
// edit, paused, and session/restored names the interrupted turn. Resumed,
// the next prompt reaches the model after the stored history.
func TestKilledDaemonKeepsItsSessions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := e.daemon()
	a := e.direct("window")
	a.initialize()
	sid := a.startSession(map[string]any{"cwd": e.work}).SessionID
	e.openai.Enqueue(fakeopenai.Reply{Chunks: []string{"first ", "answer"}})
	first := a.startTurn(sid, "first prompt\nsecond line").TurnID
	a.awaitNote(schema.EvTurnCompleted, forTurn(first))

	hold, _ := e.hold()
	e.openai.Enqueue(fakeopenai.Reply{Chunks: []string{"partial"}, Hold: hold})
	second := a.startTurn(sid, "second prompt").TurnID
	a.awaitNote(schema.EvAssistantDelta, forTurn(second))
	q1 := a.startTurn(sid, "queued one")
	q2 := a.startTurn(sid, "queued two")
	if q1.Status != "queued" || q2.Status != "queued" {
		t.Fatalf("prompts sent while a turn runs answered %+v and %+v, want queued", q1, q2)
	}
	a.mustCall(schema.MethodQueueUpdate, schema.QueueEditParams{SessionID: sid, QueueID: q1.Entry.QueueID,
		Revision: schema.Ptr(q1.Entry.Revision), Prompt: schema.Ptr("queued one, edited")}, nil)
	seen := a.all() // once: notes may arrive between two reads
	lastSeq := seen[len(seen)-1].Seq

	d.signal(t, syscall.SIGKILL)
	d.wait(t)
	e.daemon()
	b := e.direct("after the restart")
	b.initialize()
	row, ok := b.list()[sid]
	if !ok || row.State != session.StateStored || row.Queued != 2 || row.Turns != 2 || row.Title != "first prompt" {
		t.Fatalf("the restarted daemon lists %+v, want the session stored with 2 turns, 2 queued, titled by its first prompt", row)
	}

	snap := b.attachFull(sid)
	var prompts []string
	for _, q := range snap.Queue.Entries {
		prompts = append(prompts, q.Prompt)
	}
	if !snap.Queue.Paused || snap.State != "idle" || !slices.Equal(prompts, []string{"queued one, edited", "queued two"}) {
		t.Fatalf("the loaded session is %+v, want idle, paused, with both queued prompts and the edit", snap)
	}
	if snap.Seq <= lastSeq {
		t.Fatalf("the loaded session's seq %d does not continue above %d, the last one a client saw", snap.Seq, lastSeq)
	}
	restored := b.awaitNote(schema.EvSessionRestored, nil)
	var r session.SessionRestored
	json.Unmarshal(restored.Params, &r)
	if r.InterruptedTurnID != second || r.Queued != 2 || !r.Paused {
		t.Fatalf("session/restored says %s, want the second turn interrupted, 2 queued, paused", restored.Params)
	}
	for _, want := range []struct {
		method string
		pred   func(note) bool
	}{
		{schema.EvTurnStarted, func(n note) bool { return jsonField(n.Params, "prompt") == "first prompt\nsecond line" }},
		{schema.EvAssistantCompleted, func(n note) bool { return jsonField(n.Params, "content") == "first answer" }},
		{schema.EvTurnCompleted, forTurn(first)},
		{schema.EvTurnStarted, func(n note) bool { return jsonField(n.Params, "prompt") == "second prompt" }},
		{schema.EvTurnFailed, func(n note) bool { return forTurn(second)(n) && jsonField(n.Params, "code") == "interrupted" }},
		{schema.EvQueueUpdated, nil},
	} {
		if !b.has(want.method, want.pred) {
			t.Fatalf("the full replay lacks a %s:\n%s", want.method, b.dump())
		}
	}

	// Nothing ran by surprise; resuming runs the edited prompt after the
	// stored history.
	if n := len(e.openai.Requests()); n != 2 {
		t.Fatalf("the model was called %d times before the session was resumed, want 2", n)
	}
	b.mustCall(schema.MethodSessionPause, schema.SessionPauseParams{SessionID: sid, Paused: schema.Ptr(false)}, nil)
	got := lastMessages(t, e, 3)
	want := []string{"user: first prompt\nsecond line", "assistant: first answer", "user: second prompt", "user: queued one, edited"}
	if !slices.Equal(got, want) {
		t.Fatalf("after the restart the model was sent %q, want %q", got, want)
	}
}

// The same through `scv lsp --daemon=never` killed mid-turn: the next one
// loads the session paused, with the turn interrupted.
func TestKilledStdioServerKeepsItsSessions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.bridge("stdio window", "--daemon=never")
	a.initialize()
	sid := a.startSession(map[string]any{"cwd": e.work}).SessionID
	e.openai.Enqueue(fakeopenai.Reply{Chunks: []string{"done"}})
	first := a.startTurn(sid, "one").TurnID
	a.awaitNote(schema.EvTurnCompleted, forTurn(first))
	hold, _ := e.hold()
	e.openai.Enqueue(fakeopenai.Reply{Chunks: []string{"partial"}, Hold: hold})
	second := a.startTurn(sid, "two").TurnID
	a.awaitNote(schema.EvAssistantDelta, forTurn(second))
	a.proc.signal(t, syscall.SIGKILL)
	a.proc.wait(t)

	b := e.bridge("next stdio window", "--daemon=never")
	b.initialize()
	snap := b.attachFull(sid)
	if !snap.Queue.Paused {
		t.Fatalf("the session interrupted mid-turn loads as %+v, want paused", snap)
	}
	b.awaitNote(schema.EvSessionRestored, func(n note) bool { return jsonField(n.Params, "interruptedTurnId") == second })
	if !b.has(schema.EvTurnCompleted, forTurn(first)) || !b.has(schema.EvTurnFailed, forTurn(second)) {
		t.Fatalf("the replay lacks the completed or the interrupted turn:\n%s", b.dump())
	}
}

// A stdio `scv lsp --daemon=never` beside a daemon cannot take the
// daemon's session: session_owned, and the daemon's session goes on.
func TestStdioServerCannotTakeTheDaemonsSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.daemon()
	a := e.direct("daemon window")
	a.initialize()
	sid := a.startSession(map[string]any{"cwd": e.work}).SessionID

	b := e.bridge("stdio window", "--daemon=never")
	b.initialize()
	if row := b.list()[sid]; row.State != session.StateStored {
		t.Fatalf("the stdio server lists the daemon's session as %+v, want stored", row)
	}
	for _, method := range []string{schema.MethodSessionAttach, schema.MethodSessionDelete} {
		err := b.call(method, schema.SessionRef{SessionID: sid}, nil)
		ce, ok := client.AsError(err)
		if !ok || ce.DataCode() != schema.CodeSessionOwned || !strings.Contains(ce.Message, "owned by another scv process") {
			t.Fatalf("%s of the daemon's session from a stdio server answered %v, want session_owned", method, err)
		}
	}
	turn := a.startTurn(sid, "still mine").TurnID
	a.awaitNote(schema.EvTurnCompleted, forTurn(turn))
}

// Delete is refused while a turn runs; fork gives a new session whose
// history ends with the given turn, as the model's next request shows.
func TestDeleteAndFork(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.daemon()
	a := e.direct("window")
	a.initialize()
	sid := a.startSession(map[string]any{"cwd": e.work}).SessionID
	var turns []string
	for i := range 2 {
		e.openai.Enqueue(fakeopenai.Reply{Chunks: []string{fmt.Sprintf("answer %d", i)}})
		id := a.startTurn(sid, fmt.Sprintf("prompt %d", i)).TurnID
		a.awaitNote(schema.EvTurnCompleted, forTurn(id))
		turns = append(turns, id)
	}
	hold, release := e.hold()
	e.openai.Enqueue(fakeopenai.Reply{Chunks: []string{"held"}, Hold: hold})
	running := a.startTurn(sid, "prompt 2").TurnID
	a.awaitNote(schema.EvAssistantDelta, forTurn(running))
	err := a.call(schema.MethodSessionDelete, schema.SessionRef{SessionID: sid}, nil)
	if ce, ok := client.AsError(err); !ok || ce.DataCode() != schema.CodeTurnActive {
		t.Fatalf("delete while a turn runs answered %v, want turn_active", err)
	}

	var fork schema.SessionForkResult
	a.mustCall(schema.MethodSessionFork, schema.SessionForkParams{SessionID: sid, TurnID: turns[0]}, &fork)
	release()
	a.awaitNote(schema.EvTurnCompleted, forTurn(running))
	if row := a.list()[fork.SessionID]; row.State != session.StateStored || row.Turns != 1 {
		t.Fatalf("the fork is listed as %+v, want stored with 1 turn", row)
	}
	a.attach(fork.SessionID, 0)
	n := len(e.openai.Requests())
	forked := a.startTurn(fork.SessionID, "in the fork").TurnID
	a.awaitNote(schema.EvTurnCompleted, forTurn(forked))
	got := lastMessages(t, e, n+1)
	want := []string{"user: prompt 0", "assistant: answer 0", "user: in the fork"}
	if !slices.Equal(got, want) {
		t.Fatalf("the fork sent the model %q, want %q", got, want)
	}

	a.mustCall(schema.MethodSessionDelete, schema.SessionRef{SessionID: sid}, nil)
	if _, ok := a.list()[sid]; ok {
		t.Fatal("a deleted session is still listed")
	}
	err = a.call(schema.MethodSessionAttach, schema.SessionRef{SessionID: sid}, nil)
	if ce, ok := client.AsError(err); !ok || ce.DataCode() != schema.CodeSessionNotFound {
		t.Fatalf("attach of a deleted session answered %v, want session_not_found", err)
	}
}

// Damaged files: a torn last line is cut off and reported once, a file
// that is not JSON and one of an unknown version are refused with a
// message naming them; the daemon starts and lists the rest.
func TestDamagedStoreStillServes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := e.daemon()
	a := e.direct("window")
	a.initialize()
	sid := a.startSession(map[string]any{"cwd": e.work}).SessionID
	turn := a.startTurn(sid, "kept").TurnID
	a.awaitNote(schema.EvTurnCompleted, forTurn(turn))
	d.signal(t, syscall.SIGKILL)
	d.wait(t)

	dir := config.SessionsDir(e.home)
	f, err := os.OpenFile(filepath.Join(dir, sid+".jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"seq":999,"type":"turn.sta`)
	f.Close()
	os.WriteFile(filepath.Join(dir, "garbage.jsonl"), []byte("not json at all\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "future.jsonl"), []byte(`{"v":99,"id":"future","cwd":"/"}`+"\n"), 0o600)

	d = e.daemon()
	b := e.direct("after the damage")
	b.initialize()
	if row := b.list()[sid]; row.State != session.StateStored {
		t.Fatalf("the damaged store lists %+v for the good session", row)
	}
	b.attachFull(sid)
	// The replay follows the attach reply: wait for the stored turn's end.
	b.awaitNote(schema.EvTurnCompleted, forTurn(turn))
	d.awaitOutput(t, "torn")
	for id, want := range map[string]string{"garbage": "garbage.jsonl", "future": "version"} {
		err := b.call(schema.MethodSessionAttach, schema.SessionRef{SessionID: id}, nil)
		ce, ok := client.AsError(err)
		if !ok || ce.DataCode() != schema.CodeSessionNotFound || !strings.Contains(ce.Message, want) {
			t.Fatalf("attach of the damaged session %s answered %v, want session_not_found naming %q", id, err, want)
		}
	}
	turn = b.startTurn(sid, "goes on").TurnID
	b.awaitNote(schema.EvTurnCompleted, forTurn(turn))
}
