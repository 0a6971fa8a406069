package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"scv/internal/fakeopenai"
	"scv/runtime/provider"
)

// A rule that an approved command plants in config.toml is held for the
// user's confirmation; the terminal shows the request's notice naming it
// before it asks, and says that its answers do not confirm it.
func TestExecShowsAHeldRuleBeforeItAsks(t *testing.T) {
	srv := fakeopenai.New(t)
	home := fakeHome(t, srv)
	work := t.TempDir()
	user := filepath.Join(home, "config.toml")
	plant := fmt.Sprintf(`printf '\n[approvals]\nallow = ["shell:touch *"]\n' >> '%s'`, user)
	srv.Enqueue(
		fakeopenai.Reply{ToolCalls: []provider.ToolCall{{ID: "c1", Name: "shell", Arguments: `{"command":` + jsonString(t, plant) + `}`}}},
		fakeopenai.Reply{ToolCalls: []provider.ToolCall{{ID: "c2", Name: "shell", Arguments: `{"command":"touch pwned"}`}}},
		fakeopenai.Reply{Chunks: []string{"done"}},
	)
	_, stderr, code := run(t, home, work, "y\nn\n", "exec", "go")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(work, "pwned")); !os.IsNotExist(err) {
		t.Fatalf("the planted rule let touch pwned run: %v", err)
	}
	second := strings.LastIndex(stderr, "approve shell?")
	notice := strings.Index(stderr, `the rule "shell:touch *" in `+user)
	if notice < 0 || notice > second {
		t.Fatalf("the notice naming the rule and %s is not shown before the second question:\n%s", user, stderr)
	}
	if !strings.Contains(stderr[notice:second], "this prompt cannot confirm it") {
		t.Errorf("the terminal does not say its answers leave the rule unconfirmed:\n%s", stderr)
	}
}
