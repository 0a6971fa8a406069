package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"scv/lsp/lsptest"
	"scv/lsp/schema"
	"scv/lsp/wire"
	"scv/runtime/session"
)

// An AGENTS.md that is a FIFO nobody ever writes to is left out of the
// prompt: session/start answers, and so does the request sent after it on
// the same connection. (Opened blocking, the FIFO would hold session/start,
// and the connection with it, forever.)
func TestSessionStartWithFifoAgentsFile(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		fifo := filepath.Join(env.Work, "AGENTS.md")
		if err := unix.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
		ed := connect(t, env)
		// Registered after connect so it runs before the editor closes: a
		// server stuck opening the FIFO is released (it reads EOF), and a
		// failing test ends instead of hanging.
		t.Cleanup(func() {
			if f, err := os.OpenFile(fifo, os.O_WRONLY|unix.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
		})
		mark := ed.Frames()
		// Both in one write, so the test never waits on a server that has
		// stopped reading: only the awaited replies can time out.
		frames := wire.AppendFrame(nil, []byte(request("start", "scv/session/start", map[string]any{"cwd": env.Work})))
		frames = wire.AppendFrame(frames, []byte(request("list", "scv/session/list", map[string]any{})))
		ed.WriteBytes(frames)
		if r := ed.AwaitResponse(mark, `"list"`); r.Error != nil {
			t.Fatalf("session/list: %v", r.Error)
		}
		r := ed.AwaitResponse(mark, `"start"`)
		if r.Error != nil {
			t.Fatalf("session/start: %v", r.Error)
		}
		var snap session.Snapshot
		if err := json.Unmarshal(r.Result, &snap); err != nil || snap.SessionID == "" {
			t.Fatalf("session/start result %s: %v", r.Result, err)
		}
		// The model is not told about a file it was not given.
		ed.ExpectTerminal(ed.StartTurn(snap.SessionID, "hi").TurnID, schema.EvTurnCompleted)
		reqs, err := env.OpenAI.WaitRequests(1, env.Timeout)
		if err != nil {
			t.Fatal(err)
		}
		if system := reqs[0].Messages[0].Content; strings.Contains(system, "Project instructions") {
			t.Fatalf("system prompt includes the FIFO: %q", system)
		}
	})
}
