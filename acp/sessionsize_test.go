package acp_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestThePromptThatFillsTheSessionFileEndsWithANotice: a session past
// 80 % of sessions.max_log_bytes refuses prompts, and an ACP client was
// told nothing before. The turn during which the file crossed ends with
// an agent message saying so, before the prompt's answer, and
// session/load replays it.
func TestThePromptThatFillsTheSessionFileEndsWithANotice(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		env := newEnvFor(t, backend)
		env.Set("sessions", "max_log_bytes", 32<<10)
		a, _ := startAgentFor(t, env, backend)
		a.initialize()
		sid := a.newSession(1, env.Work)
		text := strings.Repeat("a prompt that fills the file ", 100)
		const notice = `sessions.max_log_bytes`
		id := 2
		for ; id < 40; id++ {
			a.request(id, "session/prompt", prompt(sid, text))
			if m := a.response(id); m.Error != nil {
				break
			}
		}
		if _, code := a.errorCode(id); code != "session_too_large" {
			t.Fatalf("prompt %d refused with %q, want session_too_large", id, code)
		}
		_, at := a.update(0, "agent_message_chunk", notice, "fork an earlier turn")
		if _, answered := a.waitFor("the answer of the prompt that filled the file", 0, func(m msg) bool { return m.Method == "" && string(m.ID) == fmt.Sprint(id-1) }); answered < at {
			t.Fatalf("prompt %d was answered (%d) before the notice (%d)", id-1, answered, at)
		}
		a.request(100, "session/load", map[string]any{"sessionId": sid, "cwd": env.Work, "mcpServers": []any{}})
		a.update(at+1, "agent_message_chunk", notice)
		a.result(100, nil)
	})
}
