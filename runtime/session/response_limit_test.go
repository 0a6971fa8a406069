package session

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"scv/internal/fakeopenai"
	"scv/runtime/provider"
)

// openAISession starts a session of a real Manager whose provider is the
// fake endpoint, with extra lines for the [provider] table of the user's
// config.
func openAISession(t *testing.T, srv *fakeopenai.Server, providerKeys string) (*Session, *waitingRecorder) {
	t.Helper()
	home := t.TempDir()
	cfg := fmt.Sprintf("[provider]\nbase_url = %q\napi_key = \"test-key\"\nmax_retries = 0\n%s", srv.URL(), providerKeys)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	m := NewManager(Options{Home: home, Getenv: func(string) string { return "" }})
	rec := newWaitingRecorder()
	s, _, err := m.Start(StartParams{Cwd: t.TempDir()}, rec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.CancelTurns(nil) })
	return s, rec
}

// An endpoint that streams past the response cap and then keeps the
// stream open forever fails the turn at the cap, without waiting for it.
func TestAStreamPastTheResponseCapFailsTheTurn(t *testing.T) {
	srv := fakeopenai.New(t)
	hold := make(chan struct{})
	defer close(hold)
	chunk := strings.Repeat("x", 64<<10)
	var chunks []string
	for range (provider.DefaultMaxResponseBytes / len(chunk)) + 2 {
		chunks = append(chunks, chunk)
	}
	srv.Enqueue(fakeopenai.Reply{Chunks: chunks, Hold: hold}, fakeopenai.Reply{Chunks: []string{"short"}})
	s, rec := openAISession(t, srv, "")
	turn := startTurn(t, s, "talk forever")
	failed := rec.waitFor(t, TurnFailed{}, 1)
	if failed["turnId"] != turn || failed["code"] != "response_limit" || !strings.Contains(failed["message"].(string), "provider.max_response_bytes") {
		t.Fatalf("turn/failed = %v", failed)
	}
	s.turns.Wait()
	startTurn(t, s, "short please")
	rec.waitFor(t, TurnCompleted{}, 1)
}

func TestToolCallArgumentsPastTheirCapFailTheTurn(t *testing.T) {
	srv := fakeopenai.New(t)
	args := `{"path":"` + strings.Repeat("a", provider.DefaultMaxToolCallBytes) + `"}`
	srv.Enqueue(fakeopenai.Reply{ToolCalls: []provider.ToolCall{{ID: "c1", Name: "list_dir", Arguments: args}}})
	s, rec := openAISession(t, srv, "")
	startTurn(t, s, "call something huge")
	failed := rec.waitFor(t, TurnFailed{}, 1)
	if failed["code"] != "response_limit" || !strings.Contains(failed["message"].(string), "provider.max_tool_call_bytes") {
		t.Fatalf("turn/failed = %v", failed)
	}
}

func TestTheResponseCapsComeFromTheConfig(t *testing.T) {
	srv := fakeopenai.New(t)
	srv.Enqueue(
		fakeopenai.Reply{Chunks: []string{strings.Repeat("x", 600), strings.Repeat("y", 600)}},
		fakeopenai.Reply{ToolCalls: []provider.ToolCall{{ID: "c1", Name: "list_dir", Arguments: `{"path":"` + strings.Repeat("a", 300) + `"}`}}},
	)
	s, rec := openAISession(t, srv, "max_response_bytes = 1000\nmax_tool_call_bytes = 256\n")
	if s.limits.MaxResponseBytes != 1000 || s.limits.MaxToolCallBytes != 256 {
		t.Errorf("the session advertises %+v", s.limits)
	}
	startTurn(t, s, "say 1200 bytes")
	if failed := rec.waitFor(t, TurnFailed{}, 1); failed["code"] != "response_limit" {
		t.Fatalf("turn/failed = %v", failed)
	}
	s.turns.Wait()
	startTurn(t, s, "call with 300 bytes")
	if failed := rec.waitFor(t, TurnFailed{}, 2); failed["code"] != "response_limit" {
		t.Fatalf("turn/failed = %v", failed)
	}
}
