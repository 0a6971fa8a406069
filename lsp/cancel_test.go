package lsp_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"scv/lsp/lsptest"
	"scv/lsp/schema"
	"scv/runtime/session"
)

// barrier makes a round trip, so every event the server sent before
// answering it has been recorded.
func barrier(t *testing.T, ed *lsptest.Editor) {
	t.Helper()
	ed.MustCall("scv/session/list", nil, nil)
}

func TestCancelWhileStreaming(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		turn, _ := startHeld(t, env, ed, sid)

		err := ed.Call("scv/turn/cancel", map[string]any{"sessionId": sid, "turnId": "not-a-turn"}, nil)
		lsptest.ExpectError(t, err, -32000, "turn_not_found")

		queued := ed.StartTurn(sid, "after the cancel")
		ed.MustCall("scv/turn/cancel", map[string]any{"sessionId": sid, "turnId": turn}, nil)
		ed.ExpectTerminal(turn, schema.EvTurnCancelled)
		// A cancelled turn ends like any other: the queue moves on.
		next := ed.AwaitNotification(schema.EvTurnStarted, lsptest.WithStr("queueId", queued.Entry.QueueID), 0)
		ed.ExpectTerminal(next.TurnID, schema.EvTurnCompleted)
		barrier(t, ed)
		var terminals []lsptest.Note
		for _, n := range ed.Notes("", lsptest.ForTurn(turn)) {
			if lsptest.IsTerminal(n.Method) {
				terminals = append(terminals, n)
			}
		}
		if len(terminals) != 1 {
			t.Errorf("turn has %d terminal events, want exactly one: %v", len(terminals), terminals)
		}
		// A cancel of a turn that has ended finds nothing.
		err = ed.Call("scv/turn/cancel", map[string]any{"sessionId": sid, "turnId": turn}, nil)
		lsptest.ExpectError(t, err, -32000, "turn_not_found")
		// The session goes on.
		ed.ExpectTerminal(ed.StartTurn(sid, "next").TurnID, schema.EvTurnCompleted)
	})
}

func TestCancelEndsPendingApproval(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		env.OpenAI.Enqueue(toolReply("call_1", "write_file", map[string]string{"path": "x.txt", "content": "x"}))
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		turn := ed.StartTurn(sid, "write x").TurnID
		req := decodeApproval(t, ed.AwaitNotification(schema.EvApprovalRequested, lsptest.ForTurn(turn), 0))

		var snap session.Snapshot
		ed.MustCall("scv/session/attach", map[string]any{"sessionId": sid}, &snap)
		if len(snap.PendingApprovals) != 1 || snap.PendingApprovals[0].ApprovalID != req.ApprovalID || snap.State != "running" || snap.TurnID != turn {
			t.Errorf("snapshot while asking = %+v", snap)
		}

		ed.MustCall("scv/turn/cancel", map[string]any{"sessionId": sid, "turnId": turn}, nil)
		ed.ExpectTerminal(turn, schema.EvTurnCancelled)
		resolved := ed.AwaitNotification(schema.EvApprovalResolved, lsptest.ForTurn(turn), 0)
		if resolved.Str("approvalId") != req.ApprovalID || resolved.Str("decision") != session.DecisionCancelled {
			t.Errorf("approval/resolved = %s", resolved.Params)
		}
		err := ed.Call("scv/approval/resolve", map[string]any{"sessionId": sid, "approvalId": req.ApprovalID, "decision": "approve"}, nil)
		lsptest.ExpectError(t, err, -32000, "approval_not_found")
		if got := env.ReadFile("x.txt"); got != "" {
			t.Errorf("x.txt = %q after the turn was cancelled", got)
		}
	})
}

func TestCancelKillsShellProcessGroup(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		fifo := env.MakeFifo("started.fifo")
		// The shell and a background child report their pids, then wait.
		cmd := fmt.Sprintf("sleep 300 & echo \"$$ $!\" > %s; wait", fifo.Path)
		env.OpenAI.Enqueue(toolReply("call_1", "shell", map[string]string{"command": cmd}))
		ed := connect(t, env)
		sid := ed.StartSession("", &schema.SessionStartParams{ApprovalPolicy: "auto"}).SessionID
		turn := ed.StartTurn(sid, "run it").TurnID
		ed.AwaitNotification(schema.EvToolStarted, lsptest.ForTurn(turn), 0)

		line, err := fifo.ReadLine(env.Timeout)
		if err != nil {
			t.Fatalf("the shell command did not start: %v (read %q)", err, line)
		}
		var pids []int
		for _, f := range strings.Fields(line) {
			pid, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("bad pid line %q", line)
			}
			pids = append(pids, pid)
		}
		if len(pids) != 2 {
			t.Fatalf("pid line %q, want the shell's and sleep's", line)
		}

		ed.MustCall("scv/turn/cancel", map[string]any{"sessionId": sid, "turnId": turn}, nil)
		ed.ExpectTerminal(turn, schema.EvTurnCancelled)
		for _, pid := range pids {
			if err := lsptest.WaitProcessGone(pid, env.Timeout); err != nil {
				t.Errorf("after turn/cancelled: %v", err)
			}
		}
		completed := ed.AwaitNotification(schema.EvToolCompleted, lsptest.ForTurn(turn), 0)
		if !strings.Contains(string(completed.Params), `"success":false`) {
			t.Errorf("tool/completed of a cancelled command = %s", completed.Params)
		}
	})
}
