package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"scv/internal/fakeopenai"
	"scv/lsp/schema"
	"scv/runtime/provider"
)

// sessionWithATurn starts a daemon session in which one turn read a file
// with a tool and answered; it returns the window and the session id.
func (e *env) sessionWithATurn() (*window, string) {
	e.t.Helper()
	if err := os.WriteFile(filepath.Join(e.work, "notes.txt"), []byte("the notes say `hello`\n"), 0o600); err != nil {
		e.t.Fatal(err)
	}
	w := e.direct("editor")
	w.initialize()
	sid := w.startSession(map[string]any{"cwd": e.work, "approvalPolicy": "never"}).SessionID
	e.openai.Enqueue(
		fakeopenai.Reply{Chunks: []string{"Reading."}, ToolCalls: []provider.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"notes.txt"}`}}},
		fakeopenai.Reply{Chunks: []string{"The notes ", "say hello."}},
	)
	w.startTurn(sid, "What do the notes say?")
	w.awaitCount(schema.EvTurnCompleted, 1)
	return w, sid
}

// scv sessions lists a live daemon session (as a table, filtered by
// directory, and as JSON); scv sessions export prints its turn as
// Markdown: the prompt, the tool call with its arguments and result, the
// answer.
func TestSessionsListsAndExportsALiveSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.daemon()
	_, sid := e.sessionWithATurn()

	out, errOut, code := e.cli("sessions")
	if code != 0 {
		t.Fatalf("scv sessions exited %d: %s", code, errOut)
	}
	header, row, _ := strings.Cut(out, "\n")
	for _, col := range []string{"SESSION", "TITLE", "AGE", "STATE", "TURNS", "QUEUED", "CWD"} {
		if !strings.Contains(header, col) {
			t.Errorf("the table's header lacks %s:\n%s", col, out)
		}
	}
	if !strings.HasPrefix(row, sid) || !strings.Contains(row, "idle") || !strings.HasSuffix(strings.TrimSpace(row), e.work) {
		t.Fatalf("scv sessions does not list %s idle in %s:\n%s", sid, e.work, out)
	}
	if out, _, code := e.cli("sessions", "--cwd", t.TempDir()); code != 0 || strings.Contains(out, sid) || !strings.Contains(out, "no sessions") {
		t.Fatalf("scv sessions --cwd elsewhere (exit %d) lists:\n%s", code, out)
	}
	if out, _, code := e.cli("sessions", "--here"); code != 0 || !strings.Contains(out, sid) {
		t.Fatalf("scv sessions --here (exit %d) in the session's directory lists:\n%s", code, out)
	}
	out, errOut, code = e.cli("sessions", "--json")
	var page struct {
		Sessions []struct{ SessionID, Cwd, State string } `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(out), &page); code != 0 || err != nil || len(page.Sessions) != 1 || page.Sessions[0].SessionID != sid {
		t.Fatalf("scv sessions --json (exit %d, %v): %s%s", code, err, out, errOut)
	}

	md, errOut, code := e.cli("sessions", "export", sid)
	if code != 0 {
		t.Fatalf("scv sessions export exited %d: %s", code, errOut)
	}
	for _, want := range []string{
		"# What do the notes say?\n",
		"- Session: `" + sid + "`",
		"- Directory: `" + e.work + "`",
		"- Model: `" + testModel + "`",
		"## Prompt\n\nWhat do the notes say?\n",
		"Reading.",
		"### Tool call `read_file`\n\n```json\n{\n  \"path\": \"notes.txt\"\n}\n```",
		"Result:\n\n```text\n",
		"the notes say `hello`",
		"The notes say hello.",
		"_Turn completed in 2 step(s)",
	} {
		i := strings.Index(md, want)
		if i < 0 {
			t.Fatalf("the export lacks %q (or has it out of order):\n%s", want, md)
		}
		md = md[i+len(want):]
	}

	if _, errOut, code := e.cli("sessions", "export", "no-such-session"); code != 1 || !strings.Contains(errOut, "no session no-such-session") {
		t.Fatalf("export of an unknown session: exit %d: %s", code, errOut)
	}
}

// scv exec --resume runs a turn in a live daemon session: the model sees
// the first turn's history, and the editor watching the session sees the
// new turn.
func TestExecResumeContinuesADaemonSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.daemon()
	w, sid := e.sessionWithATurn()

	e.openai.Enqueue(fakeopenai.Reply{Chunks: []string{"Still ", "hello."}})
	out, errOut, code := e.cli("exec", "--resume", sid, "And now?")
	if code != 0 || out != "Still hello.\n" {
		t.Fatalf("scv exec --resume exited %d with stdout %q:\n%s", code, out, errOut)
	}
	reqs := e.openai.Requests()
	if len(reqs) != 3 {
		t.Fatalf("the model got %d requests, want 3", len(reqs))
	}
	var contents []string
	for _, m := range reqs[2].Messages {
		contents = append(contents, m.Role+": "+m.Content)
	}
	for _, want := range []string{"user: What do the notes say?", "assistant: The notes say hello.", "user: And now?"} {
		if !slices.ContainsFunc(contents, func(c string) bool { return strings.HasPrefix(c, want) }) {
			t.Fatalf("the resumed turn's request lacks %q; it holds:\n%s", want, strings.Join(contents, "\n"))
		}
	}
	w.awaitCount(schema.EvTurnCompleted, 2)

	if _, errOut, code := e.cli("exec", "--resume", sid, "--model", "other", "x"); code != 2 || !strings.Contains(errOut, "--model cannot be combined with --resume") {
		t.Fatalf("exec --resume --model: exit %d: %s", code, errOut)
	}
	if _, errOut, code := e.cli("exec", "--resume", "no-such-session", "x"); code != 1 || !strings.Contains(errOut, "session_not_found") {
		t.Fatalf("exec --resume of an unknown session: exit %d: %s", code, errOut)
	}
}

// scv sessions rm deletes an idle session; it runs once the server
// advertises scv/session/delete (stored sessions).
func TestSessionsRemoveDeletesAnIdleSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.daemon()
	probe := e.direct("probe")
	if !slices.Contains(probe.initialize().Capabilities.Experimental.SCV.Methods, schema.MethodSessionDelete) {
		t.Skip("the server does not advertise scv/session/delete yet (stored sessions)")
	}
	_, sid := e.sessionWithATurn()
	out, errOut, code := e.cli("sessions", "rm", sid)
	if code != 0 || !strings.Contains(out, "deleted session "+sid) {
		t.Fatalf("scv sessions rm exited %d: %s%s", code, out, errOut)
	}
	if out, _, _ := e.cli("sessions"); strings.Contains(out, sid) {
		t.Fatalf("the deleted session is still listed:\n%s", out)
	}
	if _, errOut, code := e.cli("sessions", "rm", sid); code != 1 || !strings.Contains(errOut, "no session "+sid) {
		t.Fatalf("a second rm: exit %d: %s", code, errOut)
	}
}
