package lsp_test

import (
	"strings"
	"testing"

	"scv/lsp/lsptest"
)

// daemon.max_sessions caps the open sessions of one server: it is
// advertised, the next session/start is refused with too_many_sessions
// naming the key, and closing a session makes room again.
func TestSessionCapRefusesOneMoreSession(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		env.Set("daemon", "max_sessions", 2)
		ed := env.Connect()
		if got := ed.Initialize().Capabilities.Experimental.SCV.Limits.MaxSessions; got != 2 {
			t.Errorf("initialize advertises limits.maxSessions = %d, want 2", got)
		}
		first := ed.StartSession("", nil).SessionID
		ed.StartSession("", nil)
		_, err := ed.TryStartSession("", nil)
		e := lsptest.ExpectError(t, err, codeApplication, "too_many_sessions")
		if !strings.Contains(e.Message, "daemon.max_sessions") || !strings.Contains(e.Message, "2") {
			t.Errorf("the refusal says %q; want it to name daemon.max_sessions and its value", e.Message)
		}
		ed.MustCall("scv/session/close", map[string]any{"sessionId": first}, nil)
		ed.StartSession("", nil)
	})
}
