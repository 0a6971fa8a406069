package lsp_test

import (
	"strings"
	"testing"

	"scv/lsp/lsptest"
	"scv/runtime/session"
)

// bigQueueEntries is how many full-size prompts bigQueue queues.
const bigQueueEntries = 8

// bigQueue starts a session whose turn is held, queues bigQueueEntries
// prompts of maxPromptBytes '<' behind it and returns the session id. Each
// '<' is six bytes of JSON (\u003c), so scv/queue/list answers with about
// 12 MiB: more than the default maxServerFrameBytes of 8 MiB.
func bigQueue(t *testing.T, env *lsptest.Env, ed *lsptest.Editor) string {
	t.Helper()
	sid := ed.StartSession("", nil).SessionID
	startHeld(t, env, ed, sid)
	prompt := strings.Repeat("<", session.MaxPromptBytes)
	for range bigQueueEntries {
		if res := ed.StartTurn(sid, prompt); res.Status != "queued" {
			t.Fatalf("turn/start behind a held turn answered %q, want queued", res.Status)
		}
	}
	return sid
}

// A raised protocol.max_server_frame_bytes holds end to end: through a
// forwarding `scv lsp` too, which takes its limits from the same config
// file as the daemon instead of the protocol defaults.
func TestRaisedServerFrameLimitCarriesLargeReplies(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		env.Set("protocol", "max_server_frame_bytes", 16<<20)
		ed := connect(t, env)
		sid := bigQueue(t, env, ed)
		if q := queueOf(t, ed, sid); len(q.Entries) != bigQueueEntries {
			t.Fatalf("scv/queue/list lists %d entries, want %d", len(q.Entries), bigQueueEntries)
		}
	})
}

// A daemon started with a larger server frame limit than the bridge's (the
// config file changed in between) still answers the editor: the reply the
// bridge cannot relay becomes a response_limit error for the same request.
func TestBridgeAnswersAReplyOverItsLimit(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		if !env.ServedByDaemon() {
			t.Skip("only a forwarding bridge has a limit of its own")
		}
		env.Set("protocol", "max_server_frame_bytes", 16<<20)
		first := connect(t, env) // starts the daemon with the raised limit
		sid := bigQueue(t, env, first)

		env.Unset("protocol", "max_server_frame_bytes")
		second := connect(t, env) // a bridge with the default limit
		err := second.Call("scv/queue/list", map[string]any{"sessionId": sid}, nil)
		e := lsptest.ExpectError(t, err, codeApplication, "response_limit")
		if !strings.Contains(e.Message, "max_server_frame_bytes") {
			t.Errorf("the error says %q; want it to name protocol.max_server_frame_bytes", e.Message)
		}
		// The connection goes on.
		second.MustCall("scv/session/list", map[string]any{}, nil)
	})
}
