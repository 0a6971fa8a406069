package acp_test

import (
	"strings"
	"testing"

	"scv/lsp/lsptest"
	"scv/lsp/schema"
)

// `scv acp --approval=always` may load a live auto session an scv/* window
// started in the daemon, but its prompt there is refused: the flag would
// not hold for the turn, and the load does not change the live session.
func TestAStricterACPWindowCannotPromptALooserLiveSession(t *testing.T) {
	t.Parallel()
	env := lsptest.NewEnv(t, lsptest.Forwarded{Path: bin})
	a, ed := startAgentFor(t, env, "daemon", "--approval=always")
	sid := ed.StartSession(env.Work, &schema.SessionStartParams{ApprovalPolicy: "auto"}).SessionID
	a.initialize()
	a.request(1, "session/load", map[string]any{"sessionId": sid, "cwd": env.Work, "mcpServers": []any{}})
	a.result(1, nil)

	a.request(2, "session/prompt", prompt(sid, "write a.txt"))
	if code, _ := a.errorCode(2); code != -32602 {
		t.Fatalf("session/prompt from scv acp --approval=always to a live auto session: code %d, want -32602", code)
	}
	message := a.response(2).Error.Message
	for _, want := range []string{"--approval=always", `"auto"`, "new session"} {
		if !strings.Contains(message, want) {
			t.Errorf("refused prompt: %q lacks %q", message, want)
		}
	}
	if n := len(env.OpenAI.Requests()); n != 0 {
		t.Errorf("a refused prompt made %d model requests", n)
	}
}
