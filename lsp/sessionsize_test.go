package lsp_test

import (
	"strings"
	"testing"

	"scv/lsp/lsptest"
	"scv/lsp/schema"
)

// TestASessionPastItsFileBoundTakesNoNewPrompt: a session's file used to
// grow past what a load accepts and the session was lost at the next
// restart. sessions.max_log_bytes (lowered here) is advertised as
// maxLogBytes, and past 80 % of it turn/start is refused with
// session_too_large, suggesting a fork; what was queued before stays.
func TestASessionPastItsFileBoundTakesNoNewPrompt(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		const bound = 32 << 10
		env.Set("sessions", "max_log_bytes", bound)
		ed := env.Connect()
		if got := ed.Initialize().Capabilities.Experimental.SCV.Limits.MaxLogBytes; got != bound {
			t.Fatalf("initialize advertises maxLogBytes %d, want %d", got, bound)
		}
		sid := ed.StartSession("", nil).SessionID
		turn, release := startHeld(t, env, ed, sid)
		prompt := strings.Repeat("a prompt that fills the file ", 100)
		queued := 0
		var err error
		for ; queued < 64; queued++ {
			if err = ed.Call(schema.MethodTurnStart, map[string]any{"sessionId": sid, "prompt": prompt}, nil); err != nil {
				break
			}
		}
		e := lsptest.ExpectError(t, err, -32000, "session_too_large")
		if !strings.Contains(e.Message, "fork") || queued == 0 {
			t.Fatalf("refused after %d prompts: %s", queued, e.Message)
		}
		if q := queueOf(t, ed, sid); len(q.Entries) != queued {
			t.Fatalf("queue holds %d entries, want the %d accepted", len(q.Entries), queued)
		}
		ed.MustCall(schema.MethodSessionPause, map[string]any{"sessionId": sid, "paused": true}, nil)
		release()
		ed.AwaitTerminal(turn)
	})
}
