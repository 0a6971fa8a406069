package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"scv/internal/fakeopenai"
	"scv/runtime/provider"
)

// --approval and --no-tools may only tighten a stored session (its
// ceiling takes the flags of the process that loads it), so --resume
// takes them: a session started under auto asks again when resumed with
// --approval=always. The flags that would change it (--model, --provider,
// --base-url) are still refused.
func TestExecResumeTakesTheFlagsThatOnlyTighten(t *testing.T) {
	srv := fakeopenai.New(t)
	home := fakeHome(t, srv)
	work := t.TempDir()
	srv.Enqueue(fakeopenai.Reply{Chunks: []string{"Hello."}})
	if _, stderr, code := run(t, home, work, "", "exec", "--approval=auto", "hello"); code != 0 {
		t.Fatalf("scv exec: exit %d\n%s", code, stderr)
	}
	out, stderr, code := run(t, home, work, "", "sessions", "--json")
	if code != 0 {
		t.Fatalf("scv sessions: exit %d\n%s", code, stderr)
	}
	id := between(t, out, `"sessionId": "`, `"`)

	srv.Enqueue(
		fakeopenai.Reply{ToolCalls: []provider.ToolCall{{ID: "c1", Name: "write_file", Arguments: `{"path":"out.txt","content":"hi\n"}`}}},
		fakeopenai.Reply{Chunks: []string{"Understood."}},
	)
	_, stderr, code = run(t, home, work, "n\n", "exec", "--resume", id, "--approval=always", "write hi")
	if code != 0 || !strings.Contains(stderr, "approve write_file?") {
		t.Fatalf("scv exec --resume --approval=always: exit %d; want the write asked\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(work, "out.txt")); !os.IsNotExist(err) {
		t.Fatalf("the denied write ran: %v", err)
	}

	_, stderr, code = run(t, home, work, "", "exec", "--resume", id, "--model=other", "again")
	if code != 2 || !strings.Contains(stderr, "--model cannot be combined with --resume") {
		t.Fatalf("scv exec --resume --model: exit %d\n%s", code, stderr)
	}
}
