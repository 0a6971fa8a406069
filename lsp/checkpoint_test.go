package lsp_test

import (
	"strings"
	"testing"

	"scv/internal/fakeopenai"
	"scv/lsp/client"
	"scv/lsp/lsptest"
	"scv/lsp/schema"
)

func dataCode(err error) string {
	if e, ok := client.AsError(err); ok {
		return e.DataCode()
	}
	return ""
}

// A turn's changes are announced at its end and reviewable by request; a
// revert over the wire refuses a file the user changed since, forces it,
// announces the reverted turns, and the model's next request holds
// nothing of them. Refused while a turn runs.
func TestTurnChangesAndRevertOverTheWire(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		env.Set("agent", "approval_policy", "auto")
		env.WriteFile("notes.txt", "alpha\nbeta\n")
		env.WriteFile("old.txt", "to be removed\n")
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID

		env.OpenAI.Enqueue(
			toolReply("c1", "write_file", map[string]string{"path": "notes.txt", "content": "alpha\ngamma\n"}),
			toolReply("c2", "shell", map[string]string{"command": "rm old.txt && printf 'x\\n' > made.txt"}),
			fakeopenai.Reply{Chunks: []string{"done"}})
		turn := ed.StartTurn(sid, "reverted prompt").TurnID
		changed := ed.AwaitNotification(schema.EvTurnChanges, lsptest.ForTurn(turn), 0)
		ed.ExpectTerminal(turn, schema.EvTurnCompleted)
		var ev schema.TurnChangesEventParams
		if err := changed.Decode(&ev); err != nil {
			t.Fatal(err)
		}
		if len(ev.Files) != 3 {
			t.Fatalf("turn/changes files = %+v", ev.Files)
		}

		var all schema.TurnChangesResult
		ed.MustCall(schema.MethodTurnChanges, schema.TurnChangesParams{SessionID: sid, TurnID: turn}, &all)
		if len(all.Files) != 3 || all.Files[0].Before != nil {
			t.Fatalf("changes = %+v", all.Files)
		}
		var one schema.TurnChangesResult
		ed.MustCall(schema.MethodTurnChanges, schema.TurnChangesParams{SessionID: sid, TurnID: turn, Path: "notes.txt"}, &one)
		if len(one.Files) != 1 || !strings.Contains(one.Files[0].Diff, "+gamma") ||
			one.Files[0].Before == nil || *one.Files[0].Before != "alpha\nbeta\n" || *one.Files[0].After != "alpha\ngamma\n" {
			t.Fatalf("changes of notes.txt = %+v", one.Files)
		}
		err := ed.Call(schema.MethodTurnChanges, schema.TurnChangesParams{SessionID: sid, TurnID: turn, Path: "../etc/passwd"}, nil)
		if e, ok := client.AsError(err); !ok || e.Code != -32602 {
			t.Errorf("a path outside the workspace: %v", err)
		}

		env.WriteFile("made.txt", "the user's now\n")
		var res schema.TurnRevertResult
		ed.MustCall(schema.MethodTurnRevert, schema.TurnRevertParams{SessionID: sid, TurnID: turn}, &res)
		if len(res.Reverted) != 0 || len(res.Conflicts) != 1 || res.Conflicts[0].Path != "made.txt" {
			t.Fatalf("revert = %+v", res)
		}
		if env.ReadFile("notes.txt") != "alpha\ngamma\n" {
			t.Fatal("a refused revert wrote a file")
		}
		ed.MustCall(schema.MethodTurnRevert, schema.TurnRevertParams{SessionID: sid, TurnID: turn, Force: true}, &res)
		if len(res.Reverted) != 3 || len(res.Conflicts) != 0 {
			t.Fatalf("forced revert = %+v", res)
		}
		reverted := ed.AwaitNotification(schema.EvTurnReverted, lsptest.ForTurn(turn), 0)
		var rp schema.TurnRevertedParams
		if err := reverted.Decode(&rp); err != nil || len(rp.TurnIDs) != 1 || rp.TurnIDs[0] != turn {
			t.Fatalf("turn/reverted = %s, %v", reverted.Params, err)
		}
		if env.ReadFile("notes.txt") != "alpha\nbeta\n" || env.ReadFile("old.txt") != "to be removed\n" || env.ReadFile("made.txt") != "" {
			t.Fatal("the files were not restored")
		}

		hold, release := env.Hold()
		env.OpenAI.Enqueue(fakeopenai.Reply{Chunks: []string{"later"}, Hold: hold})
		next := ed.StartTurn(sid, "next prompt").TurnID
		if _, err := env.OpenAI.WaitRequests(4, env.Timeout); err != nil {
			t.Fatal(err)
		}
		err = ed.Call(schema.MethodTurnRevert, schema.TurnRevertParams{SessionID: sid, TurnID: next}, nil)
		if dataCode(err) != schema.CodeTurnActive {
			t.Errorf("revert while a turn runs: %v", err)
		}
		release()
		ed.ExpectTerminal(next, schema.EvTurnCompleted)
		reqs := env.OpenAI.Requests()
		for _, m := range reqs[3].Messages {
			if strings.Contains(m.Content, "reverted prompt") || m.ToolCallID != "" {
				t.Errorf("the request after the revert holds %+v", m)
			}
		}
		err = ed.Call(schema.MethodTurnRevert, schema.TurnRevertParams{SessionID: sid, TurnID: turn}, nil)
		if dataCode(err) != schema.CodeTurnNotFound {
			t.Errorf("reverting a reverted turn: %v", err)
		}
	})
}
