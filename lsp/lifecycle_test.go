package lsp_test

import (
	"scv/lsp/schema"
	"strings"
	"testing"

	"scv/lsp/lsptest"
	"scv/runtime/session"
)

func TestShutdownCancelsRunningTurnThenExitZero(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		if env.ServedByDaemon() {
			t.Skip("in the daemon a window's shutdown cancels nothing; bridge/e2e covers the daemon's own shutdown")
		}
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		turn, _ := startHeld(t, env, ed, sid)

		resp := ed.RawCall(request("bye", "shutdown", nil), `"bye"`)
		if resp.Error != nil || string(resp.Result) != "null" {
			t.Fatalf("shutdown = %s %v, want result null", resp.Result, resp.Error)
		}
		// shutdown waited for the turn: its end is already here.
		cancelled := ed.Notes(schema.EvTurnCancelled, lsptest.ForTurn(turn))
		if len(cancelled) != 1 || cancelled[0].Index > resp.Index {
			t.Fatalf("turn/cancelled %v should precede the shutdown reply (#%d)", cancelled, resp.Index)
		}
		// After shutdown only exit is accepted.
		err := ed.Call("scv/session/list", nil, nil)
		lsptest.ExpectError(t, err, codeInvalidRequest, "")

		ed.Notify("exit", nil)
		ed.AwaitClosed(env.Timeout)
		if code := ed.WaitExit(); code != 0 {
			t.Errorf("exit after shutdown: status %d, want 0\n%s", code, ed.Server().Log())
		}
	})
}

func TestShutdownStartsNoQueuedTurn(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		if env.ServedByDaemon() {
			t.Skip("in the daemon a window's shutdown cancels nothing; bridge/e2e covers the daemon's own shutdown")
		}
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		turn, _ := startHeld(t, env, ed, sid)
		ed.StartTurn(sid, "queued before shutdown")

		resp := ed.RawCall(request("bye", "shutdown", nil), `"bye"`)
		if resp.Error != nil {
			t.Fatal(resp.Error)
		}
		ed.AwaitTerminal(turn)
		if started := ed.Notes(schema.EvQueueDequeued, nil); len(started) != 0 {
			t.Errorf("a queued prompt started during shutdown: %v", started)
		}
		if n := len(env.OpenAI.Requests()); n != 1 {
			t.Errorf("the provider got %d requests, want only the cancelled turn's", n)
		}
	})
}

func TestExitWithoutShutdownIsOne(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		startHeld(t, env, ed, sid) // a running turn does not keep it alive
		ed.Notify("exit", nil)
		ed.AwaitClosed(env.Timeout)
		if code := ed.WaitExit(); code != 1 {
			t.Errorf("exit without shutdown: status %d, want 1", code)
		}
	})
}

func TestClosedInputEndsServer(t *testing.T) {
	for _, running := range []bool{false, true} {
		name := "idle"
		if running {
			name = "turn running"
		}
		t.Run(name, func(t *testing.T) {
			each(t, func(t *testing.T, env *lsptest.Env) {
				ed := connect(t, env)
				sid := ed.StartSession("", nil).SessionID
				if running {
					startHeld(t, env, ed, sid)
				}
				ed.CloseInput()
				ed.AwaitClosed(env.Timeout)
				ed.WaitExit() // any status: the point is that it ends
				if log := ed.Server().Log(); strings.Contains(log, "panic") {
					t.Errorf("log:\n%s", log)
				}
			})
		})
	}
}

func TestSessionClose(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		turn, _ := startHeld(t, env, ed, sid)
		ed.StartTurn(sid, "queued behind") // dropped by the close
		ed.MustCall("scv/session/close", map[string]any{"sessionId": sid}, nil)

		cancelled := ed.ExpectTerminal(turn, schema.EvTurnCancelled)
		closed := ed.AwaitNotification(schema.EvSessionClosed, lsptest.ForSession(sid), 0)
		if closed.Index < cancelled.Index {
			t.Errorf("session/closed (#%d) before the turn's end (#%d)", closed.Index, cancelled.Index)
		}
		barrier(t, ed)
		if n := len(ed.Notes(schema.EvTurnStarted, nil)); n != 1 {
			t.Errorf("%d turns started; the queued prompt should have been dropped", n)
		}
		for _, method := range []string{"scv/queue/list", "scv/session/close"} {
			err := ed.Call(method, map[string]any{"sessionId": sid}, nil)
			lsptest.ExpectError(t, err, codeApplication, "session_not_found")
		}
		// Closing unloads the session; it stays stored, without the
		// prompt the close dropped, and an attach loads it again.
		var snap session.Snapshot
		ed.MustCall("scv/session/attach", map[string]any{"sessionId": sid}, &snap)
		if snap.State != "idle" || len(snap.Queue.Entries) != 0 || snap.Queue.Paused {
			t.Errorf("the closed session loads as %+v, want idle with an empty queue, not paused", snap)
		}
	})
}

func TestDaemonStatusReportsItsMode(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		var status struct {
			Mode     string            `json:"mode"`
			PID      int               `json:"pid"`
			Version  string            `json:"version"`
			UptimeMs *int64            `json:"uptimeMs"`
			Clients  int               `json:"clients"`
			Sessions []session.Summary `json:"sessions"`
		}
		resp := ed.RawCall(request("st", "scv/daemon/status", nil), `"st"`)
		if resp.Error != nil {
			t.Fatal(resp.Error)
		}
		if strings.Contains(string(resp.Result), lsptest.TestAPIKey) {
			t.Errorf("daemon/status leaks the API key: %s", resp.Result)
		}
		if err := jsonUnmarshal(resp.Result, &status); err != nil {
			t.Fatal(err)
		}
		mode := "stdio"
		if env.ServedByDaemon() {
			mode = "daemon"
		}
		if status.Mode != mode || status.PID <= 0 || status.Version == "" || status.UptimeMs == nil || status.Clients != 1 ||
			len(status.Sessions) != 1 || status.Sessions[0].SessionID != sid {
			t.Errorf("daemon/status = %s", resp.Result)
		}
	})
}

// LSP: exit means 0 when shutdown was received before it, whether or not
// its reply has been sent yet.
func TestExitRightBehindShutdownIsZero(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		startHeld(t, env, ed, sid)
		ed.WriteFrame(request("bye", "shutdown", nil))
		ed.Notify("exit", nil)
		ed.AwaitClosed(env.Timeout)
		if code := ed.WaitExit(); code != 0 {
			t.Errorf("exit right behind shutdown: status %d, want 0\n%s", code, ed.Server().Log())
		}
	})
}
