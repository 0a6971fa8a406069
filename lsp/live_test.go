package lsp_test

import (
	"os"
	"strings"
	"testing"

	"scv/internal/fakeopenai"
	"scv/lsp/lsptest"
	"scv/lsp/schema"
	"scv/runtime/provider"
	"scv/runtime/session"
)

// joined concatenates one string member of notes.
func joined(notes []lsptest.Note, member string) string {
	var b strings.Builder
	for _, n := range notes {
		b.WriteString(n.Str(member))
	}
	return b.String()
}

// Reasoning arrives as scv/assistant/reasoning before the answer and is
// never sent back to the model (its storage: runtime/session's
// TestReasoningAndUsageAreStored).
func TestReasoningIsShownButNotSentBack(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		env.OpenAI.Enqueue(
			fakeopenai.Reply{Reasoning: []string{"secret ", "musing"}, Chunks: []string{"the answer"}},
			fakeopenai.Reply{Reasoning: []string{"more musing"}, ReasoningField: "reasoning", Chunks: []string{"again"}},
		)
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		first := ed.StartTurn(sid, "one").TurnID
		ed.ExpectTerminal(first, schema.EvTurnCompleted)
		second := ed.StartTurn(sid, "two").TurnID
		ed.ExpectTerminal(second, schema.EvTurnCompleted)

		reasoning := ed.Notes(schema.EvAssistantReasoning, lsptest.ForTurn(first))
		if got := joined(reasoning, "content"); got != "secret musing" || len(reasoning) != 2 {
			t.Fatalf("%d reasoning notes make %q, want 2 making %q", len(reasoning), got, "secret musing")
		}
		completed := ed.AwaitNotification(schema.EvAssistantCompleted, lsptest.ForTurn(first), 0)
		if completed.Str("content") != "the answer" || reasoning[1].Index > completed.Index {
			t.Errorf("assistant/completed = %s (#%d), after reasoning #%d", completed.Params, completed.Index, reasoning[1].Index)
		}
		if got := joined(ed.Notes(schema.EvAssistantReasoning, lsptest.ForTurn(second)), "content"); got != "more musing" {
			t.Errorf("reasoning named \"reasoning\" by the endpoint = %q", got)
		}

		reqs, err := env.OpenAI.WaitRequests(2, env.Timeout)
		if err != nil {
			t.Fatal(err)
		}
		if body := string(reqs[1].Body); strings.Contains(body, "musing") || !strings.Contains(body, "the answer") {
			t.Errorf("the second request must hold the answer and no reasoning:\n%s", body)
		}
	})
}

// A shell command's output arrives as scv/tool/output while it runs: the
// command prints, then blocks on a fifo the test writes to only once the
// printed line has arrived.
func TestShellOutputArrivesWhileItRuns(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		fifo := env.MakeFifo("release.fifo")
		cmd := "echo first; echo warning >&2; read line < " + fifo.Path + "; echo \"then $line\""
		env.OpenAI.Enqueue(toolReply("call_1", "shell", map[string]string{"command": cmd}))
		ed := connect(t, env)
		sid := ed.StartSession("", &schema.SessionStartParams{ApprovalPolicy: "auto"}).SessionID
		turn := ed.StartTurn(sid, "run it").TurnID

		ed.Await("live output of the running command", func(notes []lsptest.Note) bool {
			var out []lsptest.Note
			for _, n := range notes {
				if n.Method == schema.EvToolOutput && n.Str("callId") == "call_1" {
					out = append(out, n)
				}
			}
			return strings.Contains(joined(out, "chunk"), "first\nwarning\n")
		}, 0)
		if done := ed.Notes(schema.EvToolCompleted, lsptest.ForTurn(turn)); len(done) != 0 {
			t.Fatalf("the tool completed before it was released: %s", done[0].Params)
		}
		if err := os.WriteFile(fifo.Path, []byte("released\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		ed.ExpectTerminal(turn, schema.EvTurnCompleted)
		completed := ed.AwaitNotification(schema.EvToolCompleted, lsptest.ForTurn(turn), 0)
		chunks := ed.Notes(schema.EvToolOutput, lsptest.ForTurn(turn))
		if got := joined(chunks, "chunk"); got != "first\nwarning\nthen released\n" {
			t.Errorf("live output = %q", got)
		}
		if last := chunks[len(chunks)-1]; last.Index > completed.Index {
			t.Errorf("a chunk (#%d) came after tool/completed (#%d)", last.Index, completed.Index)
		}
		if !strings.Contains(completed.Str("output"), "then released") {
			t.Errorf("tool/completed output = %q", completed.Str("output"))
		}
	})
}

// update_plan runs without approval even under "always", its plan is
// sent as scv/plan/updated, and a bad plan goes back to the model as a
// failed tool result naming the problem.
func TestPlanUpdates(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		good := map[string]any{"steps": []map[string]string{
			{"step": "read the code", "status": "completed"},
			{"step": "fix the bug", "status": "in_progress"},
			{"step": "run the tests", "status": "pending"},
		}}
		bad := map[string]any{"steps": []map[string]string{
			{"step": "a", "status": "in_progress"}, {"step": "b", "status": "in_progress"},
		}}
		env.OpenAI.Enqueue(toolReply("plan_1", session.PlanToolName, good), toolReply("plan_2", session.PlanToolName, bad))
		ed := connect(t, env)
		sid := ed.StartSession("", &schema.SessionStartParams{ApprovalPolicy: "always"}).SessionID
		turn := ed.StartTurn(sid, "fix it").TurnID
		ed.ExpectTerminal(turn, schema.EvTurnCompleted)

		plans := ed.Notes(schema.EvPlanUpdated, lsptest.ForTurn(turn))
		if len(plans) != 1 {
			t.Fatalf("%d plan updates, want 1 (the bad plan is refused)", len(plans))
		}
		var plan session.PlanUpdated
		if err := plans[0].Decode(&plan); err != nil {
			t.Fatal(err)
		}
		if len(plan.Steps) != 3 || plan.Steps[1] != (session.PlanStep{Step: "fix the bug", Status: session.PlanInProgress}) {
			t.Errorf("plan = %+v", plan.Steps)
		}
		if asked := ed.Notes(schema.EvApprovalRequested, nil); len(asked) != 0 {
			t.Errorf("update_plan asked for approval: %s", asked[0].Params)
		}
		if got := toolResult(t, env, 1, "plan_1"); got != "Plan updated." {
			t.Errorf("the model was told %q about a good plan", got)
		}
		if got := toolResult(t, env, 2, "plan_2"); !strings.HasPrefix(got, "error: ") || !strings.Contains(got, "at most one step may be in_progress") {
			t.Errorf("the model was told %q about a bad plan", got)
		}
		// A window that attaches now sees the plan in the snapshot.
		if snap, err := ed.Attach(sid, nil); err != nil || snap.Plan == nil || len(snap.Plan.Steps) != 3 || snap.Plan.TurnID != turn {
			t.Errorf("snapshot plan = %+v, %v", snap.Plan, err)
		}
		req := env.OpenAI.Requests()[0]
		if !strings.Contains(req.Messages[0].Content, session.PlanToolName) {
			t.Errorf("the system prompt does not mention %s", session.PlanToolName)
		}
	})
}

// scv/session/usage follows every model call with the session's totals,
// the last prompt's size and the configured context window.
func TestUsageFollowsEveryModelCall(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		env.Set("context", "max_tokens", 50000)
		plan := toolReply("plan_1", session.PlanToolName, map[string]any{"steps": []map[string]string{{"step": "s", "status": "pending"}}})
		plan.Usage = &provider.Usage{InputTokens: 100, OutputTokens: 10}
		env.OpenAI.Enqueue(plan,
			fakeopenai.Reply{Chunks: []string{"done"}, Usage: &provider.Usage{InputTokens: 150, OutputTokens: 20}},
			fakeopenai.Reply{Chunks: []string{"again"}, Usage: &provider.Usage{InputTokens: 200, OutputTokens: 5}},
		)
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		first := ed.StartTurn(sid, "one").TurnID
		ed.ExpectTerminal(first, schema.EvTurnCompleted)
		second := ed.StartTurn(sid, "two").TurnID
		ed.ExpectTerminal(second, schema.EvTurnCompleted)

		var got []session.SessionUsage
		for _, n := range ed.Notes(schema.EvSessionUsage, nil) {
			var u session.SessionUsage
			if err := n.Decode(&u); err != nil {
				t.Fatal(err)
			}
			got = append(got, u)
		}
		want := []session.SessionUsage{
			{TurnID: first, InputTokens: 100, OutputTokens: 10, ContextTokens: 100, ContextMaxTokens: 50000},
			{TurnID: first, InputTokens: 250, OutputTokens: 30, ContextTokens: 150, ContextMaxTokens: 50000},
			{TurnID: second, InputTokens: 450, OutputTokens: 35, ContextTokens: 200, ContextMaxTokens: 50000},
		}
		if len(got) != len(want) {
			t.Fatalf("usage events = %+v, want %+v", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("usage event %d = %+v, want %+v", i, got[i], want[i])
			}
		}
		if snap, err := ed.Attach(sid, nil); err != nil || snap.Usage == nil || *snap.Usage != want[2] {
			t.Errorf("snapshot usage = %+v, %v; want %+v", snap.Usage, err, want[2])
		}
	})
}
