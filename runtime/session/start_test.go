package session

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"scv/runtime/config"
	"scv/runtime/provider"
)

// startIn starts a session in a fresh workspace with userConfig as the
// user's config.toml.
func startIn(t *testing.T, userConfig string, prepare func(ws string)) (*Session, error) {
	t.Helper()
	home, ws := t.TempDir(), t.TempDir()
	if err := os.WriteFile(config.UserFile(home), []byte(userConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	if prepare != nil {
		prepare(ws)
	}
	m := NewManager(Options{Home: home, Getenv: func(string) string { return "" }})
	t.Cleanup(func() { m.CancelTurns(nil) })
	s, _, err := m.Start(StartParams{Cwd: ws}, &recorder{})
	return s, err
}

func replayConfig(script string) string {
	return "[provider]\nkind = \"replay\"\nreplay_script = \"" + script + "\"\n"
}

// A replay script is read only if it is a regular file, and only up to
// MaxReplayScriptBytes: /dev/zero or a FIFO fail at once, naming the path.
func TestReplayScriptMustBeARegularFileOfBoundedSize(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "script.fifo") // never opened for writing
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.jsonl")
	line := []byte(`{"text":"hello"}` + "\n")
	data := make([]byte, 0, provider.MaxReplayScriptBytes+len(line))
	for len(data) <= provider.MaxReplayScriptBytes {
		data = append(data, line...)
	}
	if err := os.WriteFile(big, data, 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"/dev/zero": "not a regular file", fifo: "not a regular file", big: "larger than"} {
		_, err := startIn(t, replayConfig(path), nil)
		if CodeOf(err) != CodeProviderNotConfigured || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v (code %q), want %s naming the path and %q", path, err, CodeOf(err), CodeProviderNotConfigured, want)
		}
	}
}

// An AGENTS.md that is a FIFO nobody writes is left out; the session starts.
func TestAgentsFifoDoesNotBlockStart(t *testing.T) {
	s, err := startIn(t, replayConfig(""), func(ws string) {
		if err := syscall.Mkfifo(filepath.Join(ws, "AGENTS.md"), 0o600); err != nil {
			t.Fatal(err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(s.system, "Project instructions") {
		t.Fatalf("system prompt = %q", s.system)
	}
}

// The system prompt counts against context.max_tokens: a huge AGENTS.md is
// cut so the prompt takes at most its share, whatever tools.max_read_bytes
// the user allows.
func TestSystemPromptFitsTheContextBudget(t *testing.T) {
	const maxTokens = 1000
	cfg := replayConfig("") + "[tools]\nmax_read_bytes = 4194304\n[context]\nmax_tokens = 1000\n[agent]\nsystem_prompt = \"Be brief.\"\n"
	s, err := startIn(t, cfg, func(ws string) {
		if err := os.WriteFile(filepath.Join(ws, "AGENTS.md"), []byte(strings.Repeat("rule ", 1<<20/5)), 0o600); err != nil {
			t.Fatal(err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if tokens := estimateTokens(provider.Message{Content: s.system}); tokens > maxTokens/2+messageOverhead {
		t.Fatalf("system prompt of %d tokens exceeds half of context.max_tokens (%d)", tokens, maxTokens)
	}
	if !strings.Contains(s.system, "rule rule") || !strings.Contains(s.system, "truncated") {
		t.Fatalf("system prompt = %q", s.system)
	}

	// A configured prompt that cannot fit is refused with the key to change.
	_, err = startIn(t, replayConfig("")+"[context]\nmax_tokens = 10\n", nil)
	if err == nil || !strings.Contains(err.Error(), "context.max_tokens") {
		t.Fatalf("error = %v", err)
	}
}

// An attachment that is a FIFO nobody writes is refused at once: turn/start
// is answered on the connection's read loop.
func TestAttachmentFifoIsRefused(t *testing.T) {
	var fifo string
	s, err := startIn(t, replayConfig(""), func(ws string) {
		fifo = filepath.Join(ws, "pipe")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.resolveContext([]ContextItem{{URI: "file://" + fifo}})
	if CodeOf(err) != CodeInvalidParams || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("error = %v", err)
	}
}
