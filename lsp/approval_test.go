package lsp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"scv/internal/fakeopenai"
	"scv/lsp/lsptest"
	"scv/lsp/schema"
	"scv/runtime/provider"
	"scv/runtime/session"
)

// toolReply scripts a model answer that calls one tool.
func toolReply(id, name string, args any) fakeopenai.Reply {
	raw, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	return fakeopenai.Reply{ToolCalls: []provider.ToolCall{{ID: id, Name: name, Arguments: string(raw)}}}
}

// toolResult returns what the n-th request (from 0) told the model about callID.
func toolResult(t *testing.T, env *lsptest.Env, n int, callID string) string {
	t.Helper()
	reqs, err := env.OpenAI.WaitRequests(n+1, env.Timeout)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range reqs[n].Messages {
		if m.Role == "tool" && m.ToolCallID == callID {
			return m.Content
		}
	}
	t.Fatalf("request %d has no tool result for %s: %+v", n, callID, reqs[n].Messages)
	return ""
}

// toolsOffered returns how many tools the n-th request (from 0) offered the model.
func toolsOffered(t *testing.T, env *lsptest.Env, n int) int {
	t.Helper()
	reqs, err := env.OpenAI.WaitRequests(n+1, env.Timeout)
	if err != nil {
		t.Fatal(err)
	}
	return len(reqs[n].Tools)
}

// answerApproval waits for the first approval request of turn, answers it
// with decision and returns it.
func answerApproval(t *testing.T, ed *lsptest.Editor, sid, turn, decision string) session.ApprovalRequest {
	t.Helper()
	req := decodeApproval(t, ed.AwaitNotification(schema.EvApprovalRequested, lsptest.ForTurn(turn), 0))
	ed.Resolve(sid, req.ApprovalID, decision)
	return req
}

func decodeApproval(t *testing.T, n lsptest.Note) session.ApprovalRequest {
	t.Helper()
	var req session.ApprovalRequest
	if err := n.Decode(&req); err != nil {
		t.Fatal(err)
	}
	return req
}

// heldOnApproval starts a session whose turn writes a.txt and waits on that
// write's approval; then the fake model answers with answers.
func heldOnApproval(t *testing.T, env *lsptest.Env, answers ...fakeopenai.Reply) (ed *lsptest.Editor, sid, turn string, req session.ApprovalRequest) {
	t.Helper()
	env.OpenAI.Enqueue(append([]fakeopenai.Reply{toolReply("call_1", "write_file", map[string]string{"path": "a.txt", "content": "a\n"})}, answers...)...)
	ed = connect(t, env)
	sid = ed.StartSession("", nil).SessionID
	turn = ed.StartTurn(sid, "write a").TurnID
	req = decodeApproval(t, ed.AwaitNotification(schema.EvApprovalRequested, lsptest.ForTurn(turn), 0))
	return ed, sid, turn, req
}

func TestApprovedWritesChangeTheFile(t *testing.T) {
	cases := []struct {
		name  string
		reply fakeopenai.Reply
		want  string   // file content afterwards
		diff  []string // lines the summary's diff must hold
	}{
		{
			"write_file",
			toolReply("call_1", "write_file", map[string]string{"path": "notes.txt", "content": "alpha\ngamma\n"}),
			"alpha\ngamma\n",
			[]string{"--- ", "+++ ", "@@", "-beta", "+gamma"},
		},
		{
			"edit_file",
			toolReply("call_1", "edit_file", map[string]string{"path": "notes.txt", "old": "beta", "new": "delta"}),
			"alpha\ndelta\n",
			[]string{"--- ", "+++ ", "@@", "-beta", "+delta"},
		},
	}
	each(t, func(t *testing.T, env *lsptest.Env) {
		ed := connect(t, env)
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				env.WriteFile("notes.txt", "alpha\nbeta\n")
				env.OpenAI.Enqueue(tc.reply, fakeopenai.Reply{Chunks: []string{"done"}})
				sid := ed.StartSession("", nil).SessionID
				turn := ed.StartTurn(sid, "change notes").TurnID

				proposed := ed.AwaitNotification(schema.EvToolProposed, lsptest.ForTurn(turn), 0)
				asked := ed.AwaitNotification(schema.EvApprovalRequested, lsptest.ForTurn(turn), 0)
				req := decodeApproval(t, asked)
				if req.CallID != "call_1" || req.Name != tc.name || req.Risk != "write" || req.Cwd != env.Work || proposed.Index > asked.Index {
					t.Errorf("approval/requested = %s after tool/proposed %s", asked.Params, proposed.Params)
				}
				for _, line := range tc.diff {
					if !strings.Contains(req.Summary, line) {
						t.Errorf("summary lacks %q:\n%s", line, req.Summary)
					}
				}
				if got := env.ReadFile("notes.txt"); got != "alpha\nbeta\n" {
					t.Fatalf("the file changed before approval: %q", got)
				}
				ed.Resolve(sid, req.ApprovalID, session.DecisionApprove)

				completed := ed.AwaitNotification(schema.EvToolCompleted, lsptest.ForTurn(turn), 0)
				if completed.Str("callId") != "call_1" || !strings.Contains(string(completed.Params), `"success":true`) {
					t.Errorf("tool/completed = %s, want success", completed.Params)
				}
				resolved := ed.AwaitNotification(schema.EvApprovalResolved, lsptest.ForTurn(turn), 0)
				started := ed.AwaitNotification(schema.EvToolStarted, lsptest.ForTurn(turn), 0)
				if resolved.Str("decision") != "approve" || !(asked.Index < resolved.Index && resolved.Index < started.Index && started.Index < completed.Index) {
					t.Errorf("approval resolved %s (#%d), tool started #%d, completed #%d", resolved.Params, resolved.Index, started.Index, completed.Index)
				}
				done := ed.ExpectTerminal(turn, schema.EvTurnCompleted)
				if !strings.Contains(string(done.Params), `"steps":2`) {
					t.Errorf("turn/completed = %s, want 2 steps", done.Params)
				}
				if got := env.ReadFile("notes.txt"); got != tc.want {
					t.Errorf("notes.txt = %q, want %q", got, tc.want)
				}
				ed.MustCall("scv/session/close", map[string]any{"sessionId": sid}, nil)
			})
		}
	})
}

func TestDeniedWriteLeavesFileAndTurnGoesOn(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		env.WriteFile("keep.txt", "original\n")
		env.OpenAI.Enqueue(
			toolReply("call_1", "write_file", map[string]string{"path": "keep.txt", "content": "clobbered\n"}),
			fakeopenai.Reply{Chunks: []string{"understood"}},
		)
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		turn := ed.StartTurn(sid, "overwrite keep.txt").TurnID
		req := answerApproval(t, ed, sid, turn, session.DecisionDeny)

		completed := ed.AwaitNotification(schema.EvToolCompleted, lsptest.ForTurn(turn), 0)
		if !strings.Contains(string(completed.Params), `"success":false`) {
			t.Errorf("tool/completed = %s, want success false", completed.Params)
		}
		if n := len(ed.Notes(schema.EvToolStarted, lsptest.ForTurn(turn))); n != 0 {
			t.Errorf("a denied call was started (%d tool/started)", n)
		}
		ed.ExpectTerminal(turn, schema.EvTurnCompleted)
		if got := env.ReadFile("keep.txt"); got != "original\n" {
			t.Errorf("keep.txt = %q after a denial", got)
		}
		if got := toolResult(t, env, 1, "call_1"); !strings.Contains(strings.ToLower(got), "denied") {
			t.Errorf("the model was told %q, want a denied tool result", got)
		}
		// The first resolver won; a second answer finds nothing.
		err := ed.Call("scv/approval/resolve", map[string]any{"sessionId": sid, "approvalId": req.ApprovalID, "decision": "approve"}, nil)
		lsptest.ExpectError(t, err, -32000, "approval_not_found")
	})
}

func TestApproveSessionStopsAskingForThatTool(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		env.OpenAI.Enqueue(
			toolReply("call_1", "write_file", map[string]string{"path": "a.txt", "content": "a\n"}),
			toolReply("call_2", "write_file", map[string]string{"path": "b.txt", "content": "b\n"}),
			fakeopenai.Reply{Chunks: []string{"both written"}},
			toolReply("call_3", "write_file", map[string]string{"path": "c.txt", "content": "c\n"}),
			fakeopenai.Reply{Chunks: []string{"third written"}},
		)
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		turn := ed.StartTurn(sid, "write a and b").TurnID
		answerApproval(t, ed, sid, turn, session.DecisionApproveSession)
		ed.ExpectTerminal(turn, schema.EvTurnCompleted)

		// A later turn of the same session is not asked either.
		turn2 := ed.StartTurn(sid, "write c").TurnID
		ed.ExpectTerminal(turn2, schema.EvTurnCompleted)

		if asked := ed.Notes(schema.EvApprovalRequested, lsptest.ForSession(sid)); len(asked) != 1 {
			t.Errorf("%d approval requests, want 1:\n%v", len(asked), asked)
		}
		resolved := ed.AwaitNotification(schema.EvApprovalResolved, lsptest.ForTurn(turn), 0)
		if resolved.Str("decision") != session.DecisionApproveSession {
			t.Errorf("approval/resolved = %s", resolved.Params)
		}
		for name, want := range map[string]string{"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n"} {
			if got := env.ReadFile(name); got != want {
				t.Errorf("%s = %q, want %q", name, got, want)
			}
		}
		// Another session asks again.
		env.OpenAI.Enqueue(toolReply("call_4", "write_file", map[string]string{"path": "d.txt", "content": "d\n"}))
		other := ed.StartSession("", nil).SessionID
		turn3 := ed.StartTurn(other, "write d").TurnID
		ed.AwaitNotification(schema.EvApprovalRequested, lsptest.ForTurn(turn3), 0)
	})
}

func TestApprovalPolicies(t *testing.T) {
	cases := []struct {
		policy  string
		call    fakeopenai.Reply
		asked   bool
		success bool
	}{
		{"never", toolReply("c", "write_file", map[string]string{"path": "x.txt", "content": "x"}), false, false},
		{"never", toolReply("c", "list_dir", map[string]string{"path": "."}), false, true},
		{"on-risk", toolReply("c", "list_dir", map[string]string{"path": "."}), false, true},
		{"on-risk", toolReply("c", "shell", map[string]string{"command": "echo hi"}), true, true},
		{"always", toolReply("c", "list_dir", map[string]string{"path": "."}), true, true},
		{"auto", toolReply("c", "shell", map[string]string{"command": "echo hi"}), false, true},
		{"auto", toolReply("c", "write_file", map[string]string{"path": "x.txt", "content": "x"}), false, true},
	}
	each(t, func(t *testing.T, env *lsptest.Env) {
		ed := connect(t, env)
		for _, tc := range cases {
			t.Run(tc.policy+"/"+tc.call.ToolCalls[0].Name, func(t *testing.T) {
				env.OpenAI.Enqueue(tc.call, fakeopenai.Reply{Chunks: []string{"ok"}})
				sid := ed.StartSession("", &schema.SessionStartParams{ApprovalPolicy: tc.policy}).SessionID
				turn := ed.StartTurn(sid, "use a tool").TurnID
				if tc.asked {
					answerApproval(t, ed, sid, turn, session.DecisionApprove)
				}
				completed := ed.AwaitNotification(schema.EvToolCompleted, lsptest.ForTurn(turn), 0)
				ed.ExpectTerminal(turn, schema.EvTurnCompleted)
				if asked := len(ed.Notes(schema.EvApprovalRequested, lsptest.ForTurn(turn))) > 0; asked != tc.asked {
					t.Errorf("asked = %v, want %v", asked, tc.asked)
				}
				var res struct {
					Success bool   `json:"success"`
					Output  string `json:"output"`
				}
				if err := completed.Decode(&res); err != nil {
					t.Fatal(err)
				}
				if res.Success != tc.success {
					t.Errorf("tool/completed = %s, want success %v", completed.Params, tc.success)
				}
				ed.MustCall("scv/session/close", map[string]any{"sessionId": sid}, nil)
			})
		}
	})
}
