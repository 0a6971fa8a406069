package lsp_test

import (
	"strings"
	"testing"

	"scv/internal/fakeopenai"
	"scv/lsp/lsptest"
	"scv/lsp/schema"
	"scv/runtime/config"
)

// eachShared runs f where windows share one server's live sessions: a daemon
// in this process, and the binary forwarded to a real daemon.
func eachShared(t *testing.T, f func(t *testing.T, env *lsptest.Env)) {
	t.Helper()
	t.Parallel()
	shared := []lsptest.Dialer{lsptest.InProcessDaemon{}}
	for _, d := range dialers {
		if _, ok := d.(lsptest.Forwarded); ok {
			shared = append(shared, d)
		}
	}
	for _, d := range shared {
		t.Run(d.Name(), func(t *testing.T) {
			t.Parallel()
			f(t, lsptest.NewEnv(t, d))
		})
	}
}

// window connects an editor through a process given flags.
func window(t *testing.T, env *lsptest.Env, flags config.Overrides) *lsptest.Editor {
	t.Helper()
	env.Flags = flags
	return connect(t, env)
}

// expectPromptRefused checks err is the refusal of a stricter window's
// prompt: -32602 naming the window's flag, the session's policy and what to
// do instead.
func expectPromptRefused(t *testing.T, what string, err error, wants ...string) {
	t.Helper()
	e := lsptest.ExpectError(t, err, -32602, "")
	for _, want := range append(wants, "new session") {
		if !strings.Contains(e.Message, want) {
			t.Errorf("%s: %q lacks %q", what, e.Message, want)
		}
	}
}

// A window started as `scv lsp --approval=always` may attach to a live
// session another, flagless window started under auto, watch it and answer
// its approvals, but not prompt it: its flag would not hold for the turn
// (the session's policy is the other user's choice, and the attach does not
// change it). turn/start, a prompt queued behind a running turn and a steer
// are all refused, and nothing runs; the window's own sessions obey it.
func TestAStricterWindowCannotPromptALooserLiveSession(t *testing.T) {
	eachShared(t, func(t *testing.T, env *lsptest.Env) {
		loose := window(t, env, config.Overrides{})
		sid := loose.StartSession("", &schema.SessionStartParams{ApprovalPolicy: "auto"}).SessionID
		hold, release := env.Hold()
		env.OpenAI.Enqueue(fakeopenai.Reply{Chunks: []string{"busy"}, Hold: hold})
		running := loose.StartTurn(sid, "work").TurnID
		if _, err := env.OpenAI.WaitRequests(1, env.Timeout); err != nil {
			t.Fatal(err)
		}

		strict := window(t, env, config.Overrides{ApprovalPolicy: "always"})
		if _, err := strict.Attach(sid, nil); err != nil {
			t.Fatalf("attach from the stricter window: %v", err)
		}
		prompt := "write a.txt"
		err := strict.Call(schema.MethodTurnStart, schema.TurnStartParams{SessionID: sid, Prompt: &prompt}, nil)
		expectPromptRefused(t, "a prompt queued behind the running turn", err, "--approval=always", `"auto"`)
		err = strict.Call(schema.MethodTurnSteer, schema.TurnSteerParams{SessionID: sid, TurnID: running, Prompt: &prompt}, nil)
		expectPromptRefused(t, "a steer", err, "--approval=always", `"auto"`)
		var queue schema.QueueState
		strict.MustCall(schema.MethodQueueList, schema.SessionRef{SessionID: sid}, &queue)
		if len(queue.Entries) != 0 {
			t.Errorf("refused prompts left %d queue entries", len(queue.Entries))
		}
		release()
		loose.ExpectTerminal(running, schema.EvTurnCompleted)

		// Idle now: where the reviewer saw write_file run unasked. The
		// refused prompt reaches no model.
		err = strict.Call(schema.MethodTurnStart, schema.TurnStartParams{SessionID: sid, Prompt: &prompt}, nil)
		expectPromptRefused(t, "a turn on the idle session", err, "--approval=always", `"auto"`)
		barrier(t, strict)
		if n := len(env.OpenAI.Requests()); n != 1 {
			t.Errorf("%d model requests, want only the flagless window's one", n)
		}
		if got := strict.Notes(schema.EvTurnStarted, func(n lsptest.Note) bool { return n.SessionID == sid && n.TurnID != running }); len(got) != 0 {
			t.Errorf("a refused prompt started a turn: %v", got)
		}

		// --no-tools likewise: the session offers tools.
		noTools := true
		chatOnly := window(t, env, config.Overrides{NoTools: &noTools})
		if _, err := chatOnly.Attach(sid, nil); err != nil {
			t.Fatalf("attach from the --no-tools window: %v", err)
		}
		err = chatOnly.Call(schema.MethodTurnStart, schema.TurnStartParams{SessionID: sid, Prompt: &prompt}, nil)
		expectPromptRefused(t, "a --no-tools window's turn", err, "--no-tools")

		// The connections go on, the flagless window still prompts its
		// session, and a session the strict window starts is its own.
		if got := policyOf(t, loose, sid); got.ApprovalPolicy != "auto" {
			t.Errorf("the attaches changed the live session's policy to %q", got.ApprovalPolicy)
		}
		own := strict.StartSession("", nil).SessionID
		env.OpenAI.Enqueue(fakeopenai.Reply{Chunks: []string{"mine"}})
		strict.ExpectTerminal(strict.StartTurn(own, "hi").TurnID, schema.EvTurnCompleted)
		// Another window under the same flag meets that session's ceiling.
		again := window(t, env, config.Overrides{ApprovalPolicy: "always"})
		if _, err := again.Attach(own, nil); err != nil {
			t.Fatal(err)
		}
		env.OpenAI.Enqueue(fakeopenai.Reply{Chunks: []string{"also"}})
		again.ExpectTerminal(again.StartTurn(own, "hi again").TurnID, schema.EvTurnCompleted)
	})
}
