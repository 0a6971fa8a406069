package acp_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"scv/internal/fakeopenai"
	"scv/lsp/lsptest"
	"scv/runtime/config"
	"scv/runtime/provider"
)

// A rule an approved command planted in config.toml waits for the user's
// confirmation. ACP cannot confirm rules, but its permission request
// shows the notice naming the rule and the file, says that no answer
// here confirms it, and offers no option that claims to.
func TestPermissionRequestShowsAHeldRulesNotice(t *testing.T) {
	t.Parallel()
	env := lsptest.NewEnv(t, lsptest.Binary{})
	user := config.UserFile(env.Home)
	plant, _ := json.Marshal(map[string]string{"command": fmt.Sprintf(`printf '\n[approvals]\nallow = ["shell:touch *"]\n' >> '%s'`, user)})
	env.OpenAI.Enqueue(
		fakeopenai.Reply{ToolCalls: []provider.ToolCall{{ID: "c1", Name: "shell", Arguments: string(plant)}}},
		fakeopenai.Reply{ToolCalls: []provider.ToolCall{{ID: "c2", Name: "shell", Arguments: `{"command":"touch pwned"}`}}},
		fakeopenai.Reply{Chunks: []string{"done"}},
	)
	a := startAgent(t, env, "--daemon=never")
	a.initialize()
	sid := a.newSession(1, env.Work)
	a.request(2, "session/prompt", prompt(sid, "go"))
	first, i := a.waitFor("the first permission request", 0, func(m msg) bool { return m.Method == "session/request_permission" })
	if strings.Contains(first.raw, "would allow this call") {
		t.Fatalf("the first request has a notice: %s", first.raw)
	}
	a.send(`{"jsonrpc":"2.0","id":` + string(first.ID) + `,"result":{"outcome":{"outcome":"selected","optionId":"approve"}}}`)
	second, _ := a.waitFor("the second permission request", i+1, func(m msg) bool { return m.Method == "session/request_permission" })
	var p struct {
		ToolCall struct {
			Content []struct {
				Type    string
				Content struct{ Type, Text string }
			}
		}
		Options []struct{ OptionID, Name, Kind string }
	}
	if err := json.Unmarshal(second.Params, &p); err != nil {
		t.Fatal(err)
	}
	var text string
	for _, c := range p.ToolCall.Content {
		if c.Type == "content" && c.Content.Type == "text" {
			text += c.Content.Text
		}
	}
	for _, want := range []string{`"shell:touch *"`, user, "cannot confirm"} {
		if !strings.Contains(text, want) {
			t.Errorf("the tool call's content %q lacks %q", text, want)
		}
	}
	for _, o := range p.Options {
		if strings.Contains(strings.ToLower(o.Name), "rule") || strings.Contains(strings.ToLower(o.Name), "confirm") {
			t.Errorf("option %+v claims to confirm a rule", o)
		}
	}
	a.send(`{"jsonrpc":"2.0","id":` + string(second.ID) + `,"result":{"outcome":{"outcome":"selected","optionId":"deny"}}}`)
	a.result(2, nil)
}
