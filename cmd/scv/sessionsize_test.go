package main

import (
	"strings"
	"testing"

	"scv/internal/fakeopenai"
)

// TestExecShowsTheNoticeThatTheSessionFileIsNearlyFull: the turn during
// which a session's file passes 80 % of sessions.max_log_bytes ends with
// a notice; exec printed only how the turn ended, so the next prompt was
// refused with nothing shown before.
func TestExecShowsTheNoticeThatTheSessionFileIsNearlyFull(t *testing.T) {
	srv := fakeopenai.New(t)
	home := fakeHome(t, srv)
	appendConfig(t, home, "[sessions]\nmax_log_bytes = 32768\n")
	prompt := strings.Repeat("a prompt that fills the file ", 500)
	_, stderr, code := run(t, home, t.TempDir(), "", "exec", prompt)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "note: this session's file is about") || !strings.Contains(stderr, "sessions.max_log_bytes") {
		t.Fatalf("no notice that the file is nearly full:\n%s", stderr)
	}
}
