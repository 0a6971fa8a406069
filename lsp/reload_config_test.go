package lsp_test

import (
	"testing"

	"scv/lsp/lsptest"
	"scv/lsp/schema"
)

// A session keeps the model and approval policy it was configured to
// across a reload by a server started with other --model and --approval
// flags: those flags are the defaults of the sessions it starts.
func TestAReloadKeepsTheConfiguredModelOverTheServersFlags(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		if _, err := configure(ed, schema.SessionConfigureParams{SessionID: sid, Model: "configured-model", ApprovalPolicy: "always"}); err != nil {
			t.Fatal(err)
		}
		// Unloaded, and (in-process, over the binary) its server gone.
		ed.MustCall(schema.MethodSessionClose, schema.SessionRef{SessionID: sid}, nil)
		ed.Close()

		env.Flags.Model = "flag-model"
		env.Flags.ApprovalPolicy = "auto"
		next := connect(t, env)
		snap, err := next.Attach(sid, nil)
		if err != nil {
			t.Fatal(err)
		}
		if snap.Model != "configured-model" {
			t.Errorf("the reloaded snapshot names model %q, want configured-model", snap.Model)
		}
		res, err := configure(next, schema.SessionConfigureParams{SessionID: sid})
		if err != nil || res.Model != "configured-model" || res.ApprovalPolicy != "always" {
			t.Errorf("after a reload under other flags the session has %+v, %v", res, err)
		}
		turn := next.StartTurn(sid, "which model?").TurnID
		next.ExpectTerminal(turn, schema.EvTurnCompleted)

		// A new session of that server takes the flags.
		fresh := next.StartSession("", nil).SessionID
		next.ExpectTerminal(next.StartTurn(fresh, "and you?").TurnID, schema.EvTurnCompleted)
		reqs, err := env.OpenAI.WaitRequests(2, env.Timeout)
		if err != nil {
			t.Fatal(err)
		}
		if got := models(reqs); got[0] != "configured-model" || got[1] != "flag-model" {
			t.Errorf("the reloaded session, then a new one, asked models %q; want configured-model then flag-model", got)
		}
	})
}
