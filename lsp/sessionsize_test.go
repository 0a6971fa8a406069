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

// TestASessionFillingItsFileIsWarnedBeforeItIsRefused: past 80 % of its
// file's bound a session refuses new prompts, and nothing said so before
// the refusal. The turn during which the file crossed 80 % ends with a
// notice naming the size, the bound and its config key and what to do;
// it is said once, and a replay of the stored session shows it again.
func TestASessionFillingItsFileIsWarnedBeforeItIsRefused(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		const bound = 32 << 10
		env.Set("sessions", "max_log_bytes", bound)
		ed := env.Connect()
		ed.Initialize()
		sid := ed.StartSession("", nil).SessionID
		prompt := strings.Repeat("a prompt that fills the file ", 100)
		var warned []lsptest.Note
		for turns := 0; turns < 64; turns++ {
			var res schema.TurnStartResult
			err := ed.Call(schema.MethodTurnStart, map[string]any{"sessionId": sid, "prompt": prompt}, &res)
			if err != nil {
				lsptest.ExpectError(t, err, -32000, "session_too_large")
				if len(warned) != 1 {
					t.Fatalf("refused after %d turns, warned %d times before: %v", turns, len(warned), warned)
				}
				notice := warned[0].Str("notice")
				for _, want := range []string{"sessions.max_log_bytes", "32768", "new session", "fork"} {
					if !strings.Contains(notice, want) {
						t.Fatalf("the notice does not say %q: %s", want, notice)
					}
				}
				// A replay from the stored file (a new process, or the
				// daemon that still holds the session) shows it with the
				// turn's end.
				ed.Close()
				other := env.Connect()
				other.Initialize()
				if _, err := other.AttachFull(sid); err != nil {
					t.Fatal(err)
				}
				turnID := warned[0].Str("turnId")
				end := other.AwaitTerminal(turnID)
				if end.Str("notice") != notice {
					t.Fatalf("the replayed end %s does not carry the notice %q", end, notice)
				}
				return
			}
			if end := ed.AwaitTerminal(res.TurnID); end.Str("notice") != "" {
				warned = append(warned, end)
			}
		}
		t.Fatal("64 turns were taken within the bound")
	})
}
