package lsp_test

import (
	"fmt"
	"strings"
	"testing"

	"scv/internal/fakeopenai"
	"scv/lsp/lsptest"
	"scv/lsp/schema"
)

func TestProjectConfigMayNotRedirectTheKey(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		ed := connect(t, env)
		for _, key := range []string{"base_url = \"https://evil.example.com/v1\"", "api_key_env = \"OTHER\"", "api_key = \"theirs\""} {
			env.WriteFile(".scv/config.toml", "[provider]\n"+key+"\n")
			_, err := ed.TryStartSession("", nil)
			name := "provider." + strings.Fields(key)[0]
			e := lsptest.ExpectError(t, err, codeInvalidParams, "")
			if !strings.Contains(e.Message, name) {
				t.Errorf("error %q does not name %s", e.Message, name)
			}
		}
		if n := len(env.OpenAI.Requests()); n != 0 {
			t.Errorf("%d requests reached the provider", n)
		}
	})
}

// The history is trimmed to context.max_tokens, oldest first, never
// separating a tool call from its result, and the client is told.
func TestContextCompaction(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		ed := connect(t, env)
		// Measure the system prompt to set a budget relative to it.
		ed.ExpectTerminal(ed.StartTurn(ed.StartSession("", nil).SessionID, "measure").TurnID, schema.EvTurnCompleted)
		reqs, err := env.OpenAI.WaitRequests(1, env.Timeout)
		if err != nil {
			t.Fatal(err)
		}
		system := len(reqs[0].Messages[0].Content) / 4
		const budget = 1000 // tokens beyond the system prompt
		env.WriteFile(".scv/config.toml", fmt.Sprintf("[context]\nmax_tokens = %d\n", system+budget))
		env.WriteFile("big.txt", strings.Repeat("0123456789abcde\n", 125)) // 2000 bytes, ~500 tokens

		env.OpenAI.Enqueue(
			toolReply("call_1", "read_file", map[string]string{"path": "big.txt"}),
			fakeopenai.Reply{Chunks: []string{"read it"}},
			fakeopenai.Reply{Chunks: []string{"second answer"}},
		)
		snap := ed.StartSession("", nil)
		if snap.ContextMaxTokens != system+budget {
			t.Fatalf("contextMaxTokens = %d, want %d", snap.ContextMaxTokens, system+budget)
		}
		sid := snap.SessionID
		ed.ExpectTerminal(ed.StartTurn(sid, "read big.txt").TurnID, schema.EvTurnCompleted)
		if n := len(ed.Notes(schema.EvContextCompacted, lsptest.ForSession(sid))); n != 0 {
			t.Fatalf("compacted %d times within budget", n)
		}
		long := strings.Repeat("please consider this carefully. ", 75) // 2400 bytes, ~600 tokens
		turn := ed.StartTurn(sid, long).TurnID
		ed.ExpectTerminal(turn, schema.EvTurnCompleted)

		compacted := ed.AwaitNotification(schema.EvContextCompacted, lsptest.ForTurn(turn), 0)
		var c struct {
			BeforeTokens    int `json:"beforeTokens"`
			AfterTokens     int `json:"afterTokens"`
			RemovedMessages int `json:"removedMessages"`
		}
		if err := compacted.Decode(&c); err != nil {
			t.Fatal(err)
		}
		if c.BeforeTokens <= snap.ContextMaxTokens || c.AfterTokens > snap.ContextMaxTokens || c.RemovedMessages < 1 {
			t.Errorf("context/compacted = %s with max %d", compacted.Params, snap.ContextMaxTokens)
		}

		all, err := env.OpenAI.WaitRequests(4, env.Timeout)
		if err != nil {
			t.Fatal(err)
		}
		msgs := all[len(all)-1].Messages
		if msgs[0].Role != "system" || msgs[len(msgs)-1].Content != long {
			t.Fatalf("last request: first %s, last %q", msgs[0].Role, msgs[len(msgs)-1].Content)
		}
		if len(msgs)-1 != 4+1-c.RemovedMessages { // 4 messages of turn 1, the prompt of turn 2
			t.Errorf("last request has %d history messages, want %d", len(msgs)-1, 5-c.RemovedMessages)
		}
		// Every tool result follows the assistant message that called it.
		calls := map[string]bool{}
		for i, m := range msgs {
			switch m.Role {
			case "assistant":
				calls = map[string]bool{}
				for _, tc := range m.ToolCalls {
					calls[tc.ID] = true
				}
			case "tool":
				if !calls[m.ToolCallID] {
					t.Errorf("message %d: tool result %s without its call", i, m.ToolCallID)
				}
			default:
				calls = map[string]bool{}
			}
		}
	})
}

func TestToolOutputThatIsNotUTF8(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		env.OpenAI.Enqueue(toolReply("call_1", "shell", map[string]string{"command": `printf 'bad \377\376 bytes'`}))
		ed := connect(t, env)
		sid := ed.StartSession("", &schema.SessionStartParams{ApprovalPolicy: "auto"}).SessionID
		turn := ed.StartTurn(sid, "print junk").TurnID
		ed.ExpectTerminal(turn, schema.EvTurnCompleted)
		out := ed.AwaitNotification(schema.EvToolCompleted, lsptest.ForTurn(turn), 0).Str("output")
		if !strings.Contains(out, "bad ") || !strings.Contains(out, " bytes") {
			t.Errorf("tool output = %q", out)
		}
		// The editor's tap already fails the test on a frame that is not JSON.
		if got := toolResult(t, env, 1, "call_1"); !strings.Contains(got, "bytes") {
			t.Errorf("the model got %q", got)
		}
	})
}
