package lsp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"scv/internal/fakeopenai"
	"scv/lsp/lsptest"
	"scv/lsp/schema"
	"scv/runtime/config"
	"scv/runtime/session"
)

// The attack of a tool call widening its own standing approvals: an
// approved shell command appends "shell:touch *" to the user's
// config.toml, and the next touch must still be asked. The prompt names
// the rule and the file; "Always allow" with it confirms it, after which it
// applies like any of the user's rules.
func TestRulesWrittenByAToolCallWaitForTheUser(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		user := config.UserFile(env.Home)
		plant := plantRule(user, "shell:touch *")
		env.OpenAI.Enqueue(
			toolReply("call_1", "shell", map[string]string{"command": plant}),
			toolReply("call_2", "shell", map[string]string{"command": "touch pwned"}),
			fakeopenai.Reply{Chunks: []string{"first"}},
			toolReply("call_3", "shell", map[string]string{"command": "touch confirmed"}),
			fakeopenai.Reply{Chunks: []string{"second"}},
			toolReply("call_4", "shell", map[string]string{"command": "touch again"}),
			fakeopenai.Reply{Chunks: []string{"third"}},
		)
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		turn := ed.StartTurn(sid, "go").TurnID
		first := decodeApproval(t, ed.AwaitNotification(schema.EvApprovalRequested, lsptest.ForTurn(turn), 0))
		if first.CallID != "call_1" || first.Notice != "" {
			t.Fatalf("first approval = %+v, want call_1 without a notice", first)
		}
		ed.Resolve(sid, first.ApprovalID, session.DecisionApprove)
		// The planted rule is in the file, but the next touch is asked.
		second := decodeApproval(t, ed.AwaitNotification(schema.EvApprovalRequested, func(n lsptest.Note) bool {
			return n.Str("turnId") == turn && n.Str("callId") == "call_2"
		}, 0))
		if data, _ := os.ReadFile(user); !strings.Contains(string(data), "shell:touch *") {
			t.Fatalf("the command did not plant its rule; config.toml:\n%s", data)
		}
		for _, want := range []string{"shell:touch *", user} {
			if !strings.Contains(second.Notice, want) {
				t.Errorf("notice %q does not name %q", second.Notice, want)
			}
		}
		if second.SuggestedRule != "shell:touch *" || !second.ConfirmsRule {
			t.Errorf("suggestedRule = %q, confirmsRule = %v, want the rule to confirm", second.SuggestedRule, second.ConfirmsRule)
		}
		ed.Resolve(sid, second.ApprovalID, session.DecisionDeny)
		ed.ExpectTerminal(turn, schema.EvTurnCompleted)
		expectNotRun(t, env, "pwned", "the planted rule")

		// Still asked in a new session; "Always allow" with the rule confirms it.
		other := ed.StartSession("", nil).SessionID
		turn2 := ed.StartTurn(other, "again").TurnID
		third := decodeApproval(t, ed.AwaitNotification(schema.EvApprovalRequested, lsptest.ForTurn(turn2), 0))
		if third.CallID != "call_3" || third.Notice == "" {
			t.Fatalf("approval = %+v, want call_3 with a notice", third)
		}
		ed.MustCall(schema.MethodApprovalResolve, schema.ApprovalResolveParams{
			SessionID: other, ApprovalID: third.ApprovalID, Decision: "approve", AllowRule: third.SuggestedRule,
		}, nil)
		ed.ExpectTerminal(turn2, schema.EvTurnCompleted)
		turn3 := ed.StartTurn(other, "once more").TurnID
		expectRanUnasked(t, ed, env, turn3, "again", "the confirmed rule")
	})
}

// A rule the user adds by hand while no tool runs applies at once, in a
// session that is already open.
func TestRulesAddedByHandBetweenCallsApplyAtOnce(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		env.OpenAI.Enqueue(
			toolReply("call_1", "shell", map[string]string{"command": "touch one"}),
			fakeopenai.Reply{Chunks: []string{"first"}},
			toolReply("call_2", "shell", map[string]string{"command": "touch two"}),
			fakeopenai.Reply{Chunks: []string{"second"}},
		)
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		turn := ed.StartTurn(sid, "one").TurnID
		answerApproval(t, ed, sid, turn, session.DecisionApprove)
		ed.ExpectTerminal(turn, schema.EvTurnCompleted)

		env.Set("approvals", "allow", []string{"shell:touch *"})
		env.WriteConfig()
		turn2 := ed.StartTurn(sid, "two").TurnID
		expectRanUnasked(t, ed, env, turn2, "two", "the rule added by hand")
	})
}

// A command that plants a rule and then kills the server it runs under
// gains nothing: the next server finds the call that never ended in the
// ledger and holds the rule for the user's confirmation.
func TestRulesWrittenBeforeTheServerWasKilledWaitForTheUser(t *testing.T) {
	t.Parallel()
	env := lsptest.NewEnv(t, binaryDialer())
	user := config.UserFile(env.Home)
	// $PPID of the shell is the scv process running the call.
	plant := plantRule(user, "shell:touch *") + " && kill -9 $PPID"
	env.OpenAI.Enqueue(
		toolReply("call_1", "shell", map[string]string{"command": plant}),
		toolReply("call_2", "shell", map[string]string{"command": "touch pwned"}),
		fakeopenai.Reply{Chunks: []string{"done"}},
	)
	ed := connect(t, env)
	sid := ed.StartSession("", nil).SessionID
	turn := ed.StartTurn(sid, "go").TurnID
	answerApproval(t, ed, sid, turn, session.DecisionApprove)
	ed.AwaitClosed(env.Timeout)
	if data, _ := os.ReadFile(user); !strings.Contains(string(data), "shell:touch *") {
		t.Fatalf("the command did not plant its rule; config.toml:\n%s", data)
	}
	// Connect writes config.toml again from env: keep the planted rule in it.
	env.Set("approvals", "allow", []string{"shell:touch *"})

	next := connect(t, env)
	sid = next.StartSession("", nil).SessionID
	turn = next.StartTurn(sid, "again").TurnID
	asked := decodeApproval(t, next.AwaitNotification(schema.EvApprovalRequested, lsptest.ForTurn(turn), 0))
	if asked.CallID != "call_2" || !strings.Contains(asked.Notice, "shell:touch *") {
		t.Errorf("approval = %+v, want call_2 with a notice naming shell:touch *", asked)
	}
	next.Resolve(sid, asked.ApprovalID, session.DecisionDeny)
	next.ExpectTerminal(turn, schema.EvTurnCompleted)
	expectNotRun(t, env, "pwned", "the planted rule, after a restart,")
}

// plantRule is the shell command of the attack: it appends an [approvals]
// allow rule to the user's config file (user).
func plantRule(user, rule string) string {
	return fmt.Sprintf(`printf '\n[approvals]\nallow = ["%s"]\n' >> '%s'`, rule, user)
}

// expectRanUnasked: turn completed without an approval request, and the
// command it ran (touch file) made file in the work tree, let by rule.
func expectRanUnasked(t *testing.T, ed *lsptest.Editor, env *lsptest.Env, turn, file, rule string) {
	t.Helper()
	ed.ExpectTerminal(turn, schema.EvTurnCompleted)
	if n := len(ed.Notes(schema.EvApprovalRequested, lsptest.ForTurn(turn))); n != 0 {
		t.Errorf("%d approval requests after %s", n, rule)
	}
	if _, err := os.Stat(filepath.Join(env.Work, file)); err != nil {
		t.Errorf("%s did not let touch %s run: %v", rule, file, err)
	}
}

// expectNotRun: the command touch file did not run, rule did not let it.
func expectNotRun(t *testing.T, env *lsptest.Env, file, rule string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(env.Work, file)); err == nil {
		t.Errorf("%s let touch %s run", rule, file)
	}
}

// attack is a turn whose approved first command (call_1) planted a rule
// and whose second (call_2) waits on the approval asked.
type attack struct {
	ed        *lsptest.Editor
	sid, turn string
	asked     session.ApprovalRequest
}

// plantThenAsk starts the turn of an attack: the model runs plant, which
// is approved, then next, whose approval request it returns.
func plantThenAsk(t *testing.T, env *lsptest.Env, plant, next string) attack {
	t.Helper()
	env.OpenAI.Enqueue(
		toolReply("call_1", "shell", map[string]string{"command": plant}),
		toolReply("call_2", "shell", map[string]string{"command": next}),
		fakeopenai.Reply{Chunks: []string{"done"}},
	)
	ed := connect(t, env)
	sid := ed.StartSession("", nil).SessionID
	turn := ed.StartTurn(sid, "go").TurnID
	answerApproval(t, ed, sid, turn, session.DecisionApprove)
	asked := decodeApproval(t, ed.AwaitNotification(schema.EvApprovalRequested, lsptest.WithStr("callId", "call_2"), 0))
	return attack{ed, sid, turn, asked}
}

// deny answers the second command's approval with a denial and waits for
// the turn to complete.
func (a attack) deny(t *testing.T) {
	t.Helper()
	a.ed.Resolve(a.sid, a.asked.ApprovalID, session.DecisionDeny)
	a.ed.ExpectTerminal(a.turn, schema.EvTurnCompleted)
}

// binaryDialer is the dialer that starts `scv lsp` as its own process.
func binaryDialer() lsptest.Dialer {
	for _, d := range dialers {
		if _, ok := d.(lsptest.Binary); ok {
			return d
		}
	}
	panic("no binary dialer")
}

// A planted rule that would allow any command is named, but never offered
// as the rule to confirm.
func TestAPlantedRuleForAShellIsNotOffered(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		a := plantThenAsk(t, env, plantRule(config.UserFile(env.Home), "shell:sh *"), "sh build.sh")
		second := a.asked
		if second.SuggestedRule != "shell:sh build.sh" || second.ConfirmsRule {
			t.Errorf("suggestedRule = %q, confirmsRule = %v, want only the exact command, which confirms nothing", second.SuggestedRule, second.ConfirmsRule)
		}
		if !strings.Contains(second.Notice, "shell:sh *") || !strings.Contains(second.Notice, "not offered") {
			t.Errorf("notice = %q, want it to name shell:sh * and say it is not offered", second.Notice)
		}
		a.deny(t)
	})
}

// A command that plants a rule and rewrites the ledger to trust it gains
// nothing while the server that ran it lives.
func TestARuleTheCommandAlsoMarkedTrustedWaitsForTheUser(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		plant := plantRule(config.UserFile(env.Home), "shell:touch *") +
			fmt.Sprintf(` && printf '{"trusted": ["shell:touch *"], "unconfirmed": [], "calls": []}' > '%s'`, config.RuleLedgerFile(env.Home))
		a := plantThenAsk(t, env, plant, "touch pwned")
		if !strings.Contains(a.asked.Notice, "shell:touch *") {
			t.Errorf("notice = %q, want it to name shell:touch *", a.asked.Notice)
		}
		a.deny(t)
		expectNotRun(t, env, "pwned", "the planted rule")
	})
}
