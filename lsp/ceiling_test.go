package lsp_test

import (
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

// policyOf reads a session's approval policy (a configure that changes
// nothing).
func policyOf(t *testing.T, ed *lsptest.Editor, sid string) schema.SessionConfigureResult {
	t.Helper()
	res, err := configure(ed, schema.SessionConfigureParams{SessionID: sid})
	if err != nil {
		t.Fatalf("read the configuration of %s: %v", sid, err)
	}
	return res
}

// expectOnly fails the test unless session sid (what says which) runs
// under policy and allows no other.
func expectOnly(t *testing.T, ed *lsptest.Editor, sid, policy, what string) {
	t.Helper()
	if got := policyOf(t, ed, sid); got.ApprovalPolicy != policy || !equal(got.AllowedPolicies, []string{policy}) {
		t.Errorf("%s: %+v, want %s and only %s allowed", what, got, policy, policy)
	}
}

// reattach connects a new editor and attaches it to sid, which loads the
// session where no server holds it.
func reattach(t *testing.T, env *lsptest.Env, sid string) *lsptest.Editor {
	t.Helper()
	ed := connect(t, env)
	if _, err := ed.Attach(sid, nil); err != nil {
		t.Fatal(err)
	}
	return ed
}

// `scv lsp --approval=always` is a ceiling of the sessions it starts: no
// configure lifts it, in-process, over the binary or through the daemon,
// nor once the session is reloaded by a server (or through a window)
// started without the flag.
func TestTheApprovalFlagIsACeilingNoConfigureLifts(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		env.Flags.ApprovalPolicy = "always"
		ed := connect(t, env)
		sid := ed.StartSession("", &schema.SessionStartParams{ApprovalPolicy: "auto"}).SessionID
		expectOnly(t, ed, sid, "always", "started under --approval=always")
		for _, looser := range []string{"auto", "on-risk", "never"} {
			_, err := configure(ed, schema.SessionConfigureParams{SessionID: sid, ApprovalPolicy: looser})
			e := lsptest.ExpectError(t, err, -32602, "")
			for _, want := range []string{`"` + looser + `"`, "--approval"} {
				if !strings.Contains(e.Message, want) {
					t.Errorf("configure %s under --approval=always: %q lacks %q", looser, e.Message, want)
				}
			}
		}
		if n := len(ed.Notes(schema.EvSessionConfigured, nil)); n != 0 {
			t.Errorf("%d session/configured after refusals", n)
		}

		if env.ServedByDaemon() {
			// Another window, on a bridge without the flag, attaches to
			// the live session: it cannot lift it either.
			env.Flags = config.Overrides{}
			other := reattach(t, env, sid)
			_, err := configure(other, schema.SessionConfigureParams{SessionID: sid, ApprovalPolicy: "auto"})
			lsptest.ExpectError(t, err, -32602, "")
			other.Close()
		}

		// Unloaded (in-process, over the binary: its server gone), then
		// loaded by a server, or through a window, without the flag.
		ed.MustCall(schema.MethodSessionClose, schema.SessionRef{SessionID: sid}, nil)
		ed.Close()
		env.Flags = config.Overrides{}
		next := reattach(t, env, sid)
		expectOnly(t, next, sid, "always", "reloaded without the flag")
		_, err := configure(next, schema.SessionConfigureParams{SessionID: sid, ApprovalPolicy: "auto"})
		lsptest.ExpectError(t, err, -32602, "")

		// A new session of that server is free of the old flag.
		fresh := next.StartSession("", nil).SessionID
		if _, err := configure(next, schema.SessionConfigureParams{SessionID: fresh, ApprovalPolicy: "auto"}); err != nil {
			t.Errorf("a session started without the flag: configure auto: %v", err)
		}
	})
}

// approvalPolicy at scv/session/start (an editor's setting, perhaps a
// repository's .vscode/settings.json) is held to the project file's
// policy: it can only make the session stricter.
func TestAStartsApprovalPolicyIsHeldToTheProjectFile(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		env.WriteFile(filepath.Join(config.ProjectDir, config.FileName), "[agent]\napproval_policy = \"never\"\n")
		ed := connect(t, env)
		for _, asked := range []string{"auto", "on-risk"} {
			sid := ed.StartSession("", &schema.SessionStartParams{ApprovalPolicy: asked}).SessionID
			if got := policyOf(t, ed, sid); got.ApprovalPolicy != "never" || !equal(got.AllowedPolicies, []string{"never"}) {
				t.Errorf("start asking %s under a project's never: %+v, want never", asked, got)
			}
		}
	})
}

// A ceiling no policy meets (a project's never, whose reads run, and a
// flag's always, which asks before them) refuses the start, naming both.
func TestAStartWhoseCeilingNoPolicyMeetsIsRefused(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		project := env.WriteFile(filepath.Join(config.ProjectDir, config.FileName), "[agent]\napproval_policy = \"never\"\n")
		env.Flags.ApprovalPolicy = "always"
		ed := connect(t, env)
		_, err := ed.TryStartSession("", nil)
		e := lsptest.ExpectError(t, err, -32602, "")
		for _, want := range []string{project, "--approval", `"always"`, `"never"`} {
			if !strings.Contains(e.Message, want) {
				t.Errorf("refused start: %q lacks %q", e.Message, want)
			}
		}
		// The connection goes on.
		ed.MustCall(schema.MethodSessionList, schema.SessionListParams{}, nil)
		env.Flags.ApprovalPolicy = "never"
		if _, err := connect(t, env).TryStartSession("", nil); err != nil {
			t.Errorf("a start under a flag the project agrees with: %v", err)
		}
	})
}

func equal(a, b []string) bool {
	return strings.Join(a, ",") == strings.Join(b, ",")
}

// --no-tools is part of the ceiling too: a session started chat-only stays
// chat-only once it is reloaded by a server (or through a window) started
// without the flag.
func TestTheNoToolsFlagOutlivesAReload(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		noTools := true
		env.Flags.NoTools = &noTools
		env.OpenAI.Enqueue(fakeopenai.Reply{Chunks: []string{"just talk"}})
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		ed.MustCall(schema.MethodSessionClose, schema.SessionRef{SessionID: sid}, nil)
		ed.Close()

		env.Flags = config.Overrides{}
		next := reattach(t, env, sid)
		next.ExpectTerminal(next.StartTurn(sid, "hi").TurnID, schema.EvTurnCompleted)
		if n := toolsOffered(t, env, 0); n != 0 {
			t.Errorf("a session started under --no-tools was offered %d tools after a reload", n)
		}
	})
}

// A stored session loaded by `scv lsp --approval=always` runs as always
// whether that scv lsp serves it in-process or forwards the load to a
// daemon started without the flag: the flags of the process that loads a
// session tighten its ceiling either way. So does --no-tools.
func TestAStoredSessionLoadedUnderTheApprovalFlagIsHeldToIt(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		ed := connect(t, env)
		sid := ed.StartSession("", &schema.SessionStartParams{ApprovalPolicy: "auto"}).SessionID
		ed.MustCall(schema.MethodSessionClose, schema.SessionRef{SessionID: sid}, nil)
		ed.Close()

		noTools := true
		env.Flags = config.Overrides{ApprovalPolicy: "always", NoTools: &noTools}
		env.OpenAI.Enqueue(fakeopenai.Reply{Chunks: []string{"just talk"}})
		next := reattach(t, env, sid)
		expectOnly(t, next, sid, "always", "a stored auto session loaded under --approval=always")
		if _, err := configure(next, schema.SessionConfigureParams{SessionID: sid, ApprovalPolicy: "auto"}); err == nil {
			t.Error("configure auto on a session loaded under --approval=always succeeded")
		}
		next.ExpectTerminal(next.StartTurn(sid, "hi").TurnID, schema.EvTurnCompleted)
		if n := toolsOffered(t, env, 0); n != 0 {
			t.Errorf("a stored session loaded under --no-tools was offered %d tools", n)
		}
	})
}

// A fork of a session started under --approval=always is as bounded as
// its parent: a window without the flag that attaches the fork cannot
// lift it.
func TestAForkKeepsItsParentsCeiling(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		env.Flags.ApprovalPolicy = "always"
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		var fork schema.SessionForkResult
		ed.MustCall(schema.MethodSessionFork, schema.SessionForkParams{SessionID: sid}, &fork)
		ed.Close()

		env.Flags = config.Overrides{}
		next := reattach(t, env, fork.SessionID)
		expectOnly(t, next, fork.SessionID, "always", "the fork of a session started under --approval=always")
		if _, err := configure(next, schema.SessionConfigureParams{SessionID: fork.SessionID, ApprovalPolicy: "auto"}); err == nil {
			t.Error("configure auto on the fork of a session started under --approval=always succeeded")
		}
	})
}

// An approve-session grant is the answer to an approval the session's
// ceiling then allowed; a load that tightens the ceiling (here
// --approval=always) asks again instead of running the tool on it.
func TestALoadThatTightensTheCeilingForgetsApproveSession(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		env.OpenAI.Enqueue(
			toolReply("call_1", "write_file", map[string]string{"path": "a.txt", "content": "a\n"}),
			fakeopenai.Reply{Chunks: []string{"written"}},
			toolReply("call_2", "write_file", map[string]string{"path": "b.txt", "content": "b\n"}),
		)
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		turn := ed.StartTurn(sid, "write a").TurnID
		answerApproval(t, ed, sid, turn, session.DecisionApproveSession)
		ed.ExpectTerminal(turn, schema.EvTurnCompleted)
		ed.MustCall(schema.MethodSessionClose, schema.SessionRef{SessionID: sid}, nil)
		ed.Close()

		env.Flags.ApprovalPolicy = "always"
		next := reattach(t, env, sid)
		turn2 := next.StartTurn(sid, "write b").TurnID
		// Asked, or run unasked: whichever comes first.
		next.Await("the write's approval or its start", func(notes []lsptest.Note) bool {
			for _, n := range notes {
				if n.TurnID == turn2 && (n.Method == schema.EvApprovalRequested || n.Method == schema.EvToolStarted) {
					return true
				}
			}
			return false
		}, 0)
		if started := next.Notes(schema.EvToolStarted, lsptest.ForTurn(turn2)); len(started) != 0 {
			t.Error("the write ran unasked on an approve-session granted under a looser ceiling")
		}
	})
}

// A project file's `[tools] enabled = false` is part of the ceiling, as
// --no-tools is: a session started chat-only under it stays chat-only once
// it is reloaded after the line is removed from the file.
func TestAProjectsToolsOffOutlivesTheFile(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		project := env.WriteFile(filepath.Join(config.ProjectDir, config.FileName), "[tools]\nenabled = false\n")
		env.OpenAI.Enqueue(fakeopenai.Reply{Chunks: []string{"just talk"}})
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		ed.MustCall(schema.MethodSessionClose, schema.SessionRef{SessionID: sid}, nil)
		ed.Close()
		if err := os.Remove(project); err != nil {
			t.Fatal(err)
		}

		next := reattach(t, env, sid)
		next.ExpectTerminal(next.StartTurn(sid, "hi").TurnID, schema.EvTurnCompleted)
		if n := toolsOffered(t, env, 0); n != 0 {
			t.Errorf("a session started under a project's tools.enabled = false was offered %d tools once the file was gone", n)
		}
		// A new session takes the file as it is now.
		fresh := next.StartSession("", nil).SessionID
		env.OpenAI.Enqueue(fakeopenai.Reply{Chunks: []string{"tools again"}})
		next.ExpectTerminal(next.StartTurn(fresh, "hi").TurnID, schema.EvTurnCompleted)
		if toolsOffered(t, env, 1) == 0 {
			t.Error("a session started after the file was gone was offered no tools")
		}
	})
}
