package lsp_test

import (
	"net/http"
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

func configure(ed *lsptest.Editor, p schema.SessionConfigureParams) (schema.SessionConfigureResult, error) {
	var res schema.SessionConfigureResult
	err := ed.Call(schema.MethodSessionConfigure, p, &res)
	return res, err
}

func TestConfigureSwitchesTheModelOfTheNextRequest(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		windows := []*lsptest.Editor{ed}
		if env.ServedByDaemon() {
			// A second window on the daemon's session.
			watcher := connect(t, env)
			if _, err := watcher.Attach(sid, nil); err != nil {
				t.Fatal(err)
			}
			windows = append(windows, watcher)
		}
		first := ed.StartTurn(sid, "one").TurnID
		ed.ExpectTerminal(first, schema.EvTurnCompleted)

		res, err := configure(ed, schema.SessionConfigureParams{SessionID: sid, Model: "other-model", ApprovalPolicy: "always"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Model != "other-model" || res.ApprovalPolicy != "always" {
			t.Errorf("configure answered %+v", res)
		}
		// Every window is told.
		for _, w := range windows {
			n := w.AwaitNotification(schema.EvSessionConfigured, lsptest.ForSession(sid), 0)
			if n.Str("model") != "other-model" || n.Str("approvalPolicy") != "always" {
				t.Errorf("session/configured = %s", n.Params)
			}
		}
		second := ed.StartTurn(sid, "two").TurnID
		ed.ExpectTerminal(second, schema.EvTurnCompleted)
		reqs, err := env.OpenAI.WaitRequests(2, env.Timeout)
		if err != nil {
			t.Fatal(err)
		}
		if reqs[0].Model != lsptest.TestModel || reqs[1].Model != "other-model" {
			t.Errorf("requests named models %q then %q, want %q then other-model", reqs[0].Model, reqs[1].Model, lsptest.TestModel)
		}

		// Only the policy: the model stays.
		res, err = configure(ed, schema.SessionConfigureParams{SessionID: sid, ApprovalPolicy: "on-risk"})
		if err != nil || res.Model != "other-model" || res.ApprovalPolicy != "on-risk" {
			t.Errorf("configure policy only = %+v, %v", res, err)
		}

		// Stored: a reload keeps both.
		ed.MustCall(schema.MethodSessionClose, schema.SessionRef{SessionID: sid}, nil)
		var list schema.SessionListResult
		ed.MustCall(schema.MethodSessionList, schema.SessionListParams{}, &list)
		for _, row := range list.Sessions {
			if row.SessionID == sid && (row.Model != "other-model" || row.State != session.StateStored) {
				t.Errorf("the stored session is listed as %+v, want model other-model", row)
			}
		}
		snap, err := ed.Attach(sid, nil)
		if err != nil {
			t.Fatal(err)
		}
		if snap.Model != "other-model" {
			t.Errorf("reloaded snapshot model = %q", snap.Model)
		}
		res, err = configure(ed, schema.SessionConfigureParams{SessionID: sid})
		if err != nil || res.Model != "other-model" || res.ApprovalPolicy != "on-risk" {
			t.Errorf("after a reload the session has %+v, %v", res, err)
		}
	})
}

func TestConfigureSwitchesTheModelInsideARunningTurn(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		ed, sid, turn, req := heldOnApproval(t, env, fakeopenai.Reply{Chunks: []string{"done"}})
		if _, err := configure(ed, schema.SessionConfigureParams{SessionID: sid, Model: "switched"}); err != nil {
			t.Fatal(err)
		}
		ed.Resolve(sid, req.ApprovalID, "approve")
		ed.ExpectTerminal(turn, schema.EvTurnCompleted)
		reqs := env.OpenAI.Requests()
		if len(reqs) != 2 || reqs[0].Model != lsptest.TestModel || reqs[1].Model != "switched" {
			t.Errorf("the turn's requests named %v", models(reqs))
		}
	})
}

func models(reqs []fakeopenai.RecordedRequest) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.Model)
	}
	return out
}

func TestConfigureRefusals(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		project := env.WriteFile(filepath.Join(config.ProjectDir, config.FileName), "[agent]\napproval_policy = \"always\"\n")
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID

		_, err := configure(ed, schema.SessionConfigureParams{SessionID: sid, ApprovalPolicy: "sometimes"})
		if e := lsptest.ExpectError(t, err, -32602, ""); !strings.Contains(e.Message, "sometimes") {
			t.Errorf("a bad policy: %s", e.Message)
		}
		// The project file asks always: the workspace may not be loosened.
		_, err = configure(ed, schema.SessionConfigureParams{SessionID: sid, ApprovalPolicy: "auto"})
		e := lsptest.ExpectError(t, err, -32602, "")
		for _, want := range []string{`"auto"`, "agent.approval_policy", project} {
			if !strings.Contains(e.Message, want) {
				t.Errorf("refusing auto under a project's always: %q lacks %q", e.Message, want)
			}
		}
		_, err = configure(ed, schema.SessionConfigureParams{SessionID: sid, Model: "two\nlines"})
		lsptest.ExpectError(t, err, -32602, "")
		if n := len(ed.Notes(schema.EvSessionConfigured, nil)); n != 0 {
			t.Errorf("%d session/configured after refusals", n)
		}
		_, err = configure(ed, schema.SessionConfigureParams{SessionID: "missing", Model: "m"})
		lsptest.ExpectError(t, err, -32000, "session_not_found")

		// What the project allows still works.
		res, err := configure(ed, schema.SessionConfigureParams{SessionID: sid, ApprovalPolicy: "always"})
		if err != nil || res.ApprovalPolicy != "always" {
			t.Errorf("configure always = %+v, %v", res, err)
		}
		// The ceiling was fixed when the session started; a session started
		// without the project file is free of it.
		if err := os.Remove(project); err != nil {
			t.Fatal(err)
		}
		_, err = configure(ed, schema.SessionConfigureParams{SessionID: sid, ApprovalPolicy: "auto"})
		lsptest.ExpectError(t, err, -32602, "")
		fresh := ed.StartSession("", nil).SessionID
		if _, err := configure(ed, schema.SessionConfigureParams{SessionID: fresh, ApprovalPolicy: "auto"}); err != nil {
			t.Errorf("without a project file auto is the user's choice: %v", err)
		}
	})
}

func listModels(t *testing.T, ed *lsptest.Editor, sid string) schema.ModelListResult {
	t.Helper()
	var res schema.ModelListResult
	ed.MustCall(schema.MethodModelList, schema.SessionRef{SessionID: sid}, &res)
	return res
}

func TestModelListHasConfiguredAndProviderModels(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		env.Set("provider", "models", []string{"extra-model", lsptest.TestModel})
		env.OpenAI.SetModels("served-b", "served-a", "extra-model")
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		res := listModels(t, ed, sid)
		want := []schema.ModelInfo{
			{ID: lsptest.TestModel, Source: "config"}, {ID: "extra-model", Source: "config"},
			{ID: "served-a", Source: "provider"}, {ID: "served-b", Source: "provider"},
		}
		if res.Error != "" || !equalModels(res.Models, want) {
			t.Errorf("model/list = %+v, want %+v", res, want)
		}
		// Cached per base URL: a second listing, from another session too,
		// does not ask again.
		other := ed.StartSession("", nil).SessionID
		if again := listModels(t, ed, other); !equalModels(again.Models, want) {
			t.Errorf("second model/list = %+v", again)
		}
		if n := env.OpenAI.ModelRequests(); n != 1 {
			t.Errorf("the provider was asked %d times, want once", n)
		}
	})
}

func TestModelListReportsAProviderFailure(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		env.OpenAI.FailModels(http.StatusInternalServerError)
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		res := listModels(t, ed, sid)
		if !strings.Contains(res.Error, "500") || !equalModels(res.Models, []schema.ModelInfo{{ID: lsptest.TestModel, Source: "config"}}) {
			t.Errorf("model/list with a failing provider = %+v", res)
		}
		// A failure is not cached: once the provider answers, it is listed.
		env.OpenAI.SetModels("late")
		if res := listModels(t, ed, sid); res.Error != "" || len(res.Models) != 2 {
			t.Errorf("model/list after recovery = %+v", res)
		}
	})
}

func equalModels(a, b []schema.ModelInfo) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
