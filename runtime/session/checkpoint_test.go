package session

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"scv/internal/fakeopenai"
	"scv/runtime/config"
	"scv/runtime/provider"
	"scv/runtime/store"
)

// ckptRig is a stored session of a real Manager, tools approved without
// asking, talking to the fake endpoint, in a workspace of its own.
type ckptRig struct {
	t   testing.TB
	m   *Manager
	s   *Session
	rec *waitingRecorder
	srv *fakeopenai.Server
	ws  string
	// turns and changes count the terminal and changes events seen by
	// the benchmarks' timedTurn.
	turns, changes int
}

func newCkptRig(t testing.TB, extraConfig string) *ckptRig {
	t.Helper()
	return newCkptRigAt(t, t.TempDir(), t.TempDir(), extraConfig)
}

// newCkptRigAt is newCkptRig with scv's home and the workspace given.
func newCkptRigAt(t testing.TB, home, ws, extraConfig string) *ckptRig {
	t.Helper()
	srv := fakeopenai.New(t)
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("[provider]\nbase_url = %q\napi_key = \"k\"\nmax_retries = 0\n[agent]\napproval_policy = \"auto\"\n%s", srv.URL(), extraConfig)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(filepath.Join(home, "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	m := NewManager(Options{Home: home, Getenv: func(string) string { return "" }, Store: st})
	rec := newWaitingRecorder()
	s, _, err := m.Start(StartParams{Cwd: ws}, rec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.CancelTurns(nil); m.Shutdown() })
	return &ckptRig{t: t, m: m, s: s, rec: rec, srv: srv, ws: s.cwd}
}

func call(id, name string, args map[string]any) provider.ToolCall {
	b, _ := json.Marshal(args)
	return provider.ToolCall{ID: id, Name: name, Arguments: string(b)}
}

// turn runs one turn that makes calls and then answers "done", and
// returns its id once it ended.
func (r *ckptRig) turn(n int, prompt string, calls ...provider.ToolCall) string {
	r.t.Helper()
	if len(calls) > 0 {
		r.srv.Enqueue(fakeopenai.Reply{ToolCalls: calls})
	}
	r.srv.Enqueue(fakeopenai.Reply{Chunks: []string{"done"}})
	id := startTurn(r.t.(*testing.T), r.s, prompt)
	r.rec.waitFor(r.t.(*testing.T), TurnCompleted{}, n)
	return id
}

func (r *ckptRig) file(path string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(r.ws, path))
	return string(b), err == nil
}

func (r *ckptRig) put(path, content string) {
	r.t.Helper()
	if err := os.WriteFile(filepath.Join(r.ws, path), []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// Three turns (an edit, a create, a delete through the shell) reverted at
// once: the files are back, untouched files keep their mtime, files
// outside the workspace are never touched, and the model's next request
// holds no message of the reverted turns, also after a reload.
func TestRevertThreeTurnsRestoresFilesAndCutsHistory(t *testing.T) {
	r := newCkptRig(t, "")
	outside := filepath.Join(t.TempDir(), "outside.txt")
	os.WriteFile(outside, []byte("outside\n"), 0o644)
	r.put("a.txt", "one\n")
	r.put("b.txt", "bee\n")
	r.put("still.txt", "still\n")
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	os.Chtimes(filepath.Join(r.ws, "still.txt"), old, old)

	r.turn(1, "keep this prompt")
	t1 := r.turn(2, "first reverted prompt", call("c1", "edit_file", map[string]any{"path": "a.txt", "old": "one", "new": "two"}))
	changes := r.rec.waitFor(t, TurnChanges{}, 1)
	if changes["turnId"] != t1 || !strings.Contains(fmt.Sprint(changes["files"]), "a.txt") {
		t.Fatalf("turn/changes = %v", changes)
	}
	r.turn(3, "second reverted prompt", call("c2", "write_file", map[string]any{"path": "new/c.txt", "content": "created\n"}))
	r.turn(4, "third reverted prompt", call("c3", "shell", map[string]any{"command": "rm b.txt; echo changed > " + outside}))
	os.WriteFile(outside, []byte("outside\n"), 0o644) // the shell's write outside stays the user's business

	res, err := r.s.RevertTurn(t1, false)
	if err != nil || len(res.Conflicts) != 0 || len(res.Reverted) != 3 {
		t.Fatalf("revert = %+v, %v", res, err)
	}
	reverted := r.rec.waitFor(t, TurnReverted{}, 1)
	if ids := reverted["turnIds"].([]any); reverted["turnId"] != t1 || len(ids) != 3 {
		t.Fatalf("turn/reverted = %v", reverted)
	}
	if s, _ := r.file("a.txt"); s != "one\n" {
		t.Errorf("a.txt = %q", s)
	}
	if _, ok := r.file("new/c.txt"); ok {
		t.Error("the created file is still there")
	}
	if s, _ := r.file("b.txt"); s != "bee\n" {
		t.Errorf("b.txt = %q", s)
	}
	if info, _ := os.Stat(filepath.Join(r.ws, "still.txt")); !info.ModTime().Equal(old) {
		t.Errorf("an untouched file's mtime changed")
	}
	if b, _ := os.ReadFile(outside); string(b) != "outside\n" {
		t.Errorf("a file outside the workspace was written: %q", b)
	}
	if _, err := r.s.RevertTurn(t1, false); CodeOf(err) != CodeTurnNotFound {
		t.Errorf("a second revert of the same turn: %v, want %s", err, CodeTurnNotFound)
	}

	r.turn(5, "after the revert")
	assertNoRevertedPrompt(t, r.srv.Requests())

	// A reload rebuilds the same history from the log.
	id := r.s.ID()
	if err := r.m.Close(id); err != nil {
		t.Fatal(err)
	}
	s, err := r.m.Load(id, config.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	msgs := s.requestMessages()
	var prompts []string
	for _, m := range msgs {
		if m.Role == provider.RoleUser {
			prompts = append(prompts, m.Content)
		}
	}
	if strings.Join(prompts, "|") != "keep this prompt|after the revert" {
		t.Errorf("reloaded history prompts = %q", prompts)
	}
}

func assertNoRevertedPrompt(t *testing.T, reqs []fakeopenai.RecordedRequest) {
	t.Helper()
	last := reqs[len(reqs)-1]
	var users []string
	for _, m := range last.Messages {
		if strings.Contains(m.Content, "reverted prompt") || m.ToolCallID != "" || len(m.ToolCalls) > 0 {
			t.Errorf("the request after the revert holds %+v", m)
		}
		if m.Role == "user" {
			users = append(users, m.Content)
		}
	}
	if strings.Join(users, "|") != "keep this prompt|after the revert" {
		t.Errorf("user messages after the revert = %q", users)
	}
}

// A file the user changed after the turn is a conflict: nothing is
// written and the turn stays revertable, until force reverts it.
func TestRevertConflictIsRefusedThenForced(t *testing.T) {
	r := newCkptRig(t, "")
	r.put("a.txt", "one\n")
	t1 := r.turn(1, "edit", call("c1", "write_file", map[string]any{"path": "a.txt", "content": "two\n"}))
	r.rec.waitFor(t, TurnChanges{}, 1)
	r.put("a.txt", "user\n")
	res, err := r.s.RevertTurn(t1, false)
	if err != nil || len(res.Conflicts) != 1 || res.Conflicts[0].Path != "a.txt" || len(res.Reverted) != 0 {
		t.Fatalf("revert = %+v, %v", res, err)
	}
	if s, _ := r.file("a.txt"); s != "user\n" {
		t.Fatalf("a conflicting file was written: %q", s)
	}
	res, err = r.s.RevertTurn(t1, true)
	if err != nil || len(res.Reverted) != 1 {
		t.Fatalf("forced revert = %+v, %v", res, err)
	}
	if s, _ := r.file("a.txt"); s != "one\n" {
		t.Errorf("a.txt = %q", s)
	}
}

// The turn's after is snapshotted once the turn has ended: a file the
// user changes in between must not pass for the turn's change, or a
// revert would throw the user's change away without a word.
func TestAFileChangedBeforeTheTurnsAfterIsTakenIsAConflict(t *testing.T) {
	r := newCkptRig(t, "")
	r.put("a.txt", "one\n")
	lateChange(r, "a.txt", func() { r.put("a.txt", "user\n") })
	t1 := r.turn(1, "edit", call("c1", "write_file", map[string]any{"path": "a.txt", "content": "two\n"}))
	r.rec.waitFor(t, TurnChanges{}, 1)
	res, err := r.s.RevertTurn(t1, false)
	if err != nil || len(res.Conflicts) != 1 || len(res.Reverted) != 0 {
		t.Fatalf("revert = %+v, %v; want a.txt as a conflict", res, err)
	}
	if d := res.Conflicts[0].Diff; !strings.Contains(d, "changed again after the turn ended") || !strings.Contains(d, "+user") || !strings.Contains(d, "-one") {
		t.Errorf("conflict diff = %q", d)
	}
	if s, _ := r.file("a.txt"); s != "user\n" {
		t.Fatalf("the user's change was overwritten: %q", s)
	}
	if res, err = r.s.RevertTurn(t1, true); err != nil || len(res.Reverted) != 1 {
		t.Fatalf("forced revert = %+v, %v", res, err)
	}
	if s, _ := r.file("a.txt"); s != "one\n" {
		t.Errorf("a.txt = %q after a forced revert", s)
	}
}

// A revert stopped after its first file, as a kill -9 would stop it,
// leaves no torn file; running it again finishes it and cuts the history.
func TestRevertStoppedHalfWayFinishesWhenRunAgain(t *testing.T) {
	r := newCkptRig(t, "")
	var calls []provider.ToolCall
	for i := range 3 {
		p := fmt.Sprintf("f%d.txt", i)
		r.put(p, "before\n")
		calls = append(calls, call(fmt.Sprint("c", i), "write_file", map[string]any{"path": p, "content": "after\n"}))
	}
	t1 := r.turn(1, "three files", calls...)
	r.s.ckpt.revertHook = func(string) { panic(errStopRevert) }
	func() {
		defer func() {
			if v := recover(); v != errStopRevert {
				t.Fatalf("recovered %v", v)
			}
		}()
		r.s.RevertTurn(t1, false)
	}()
	r.s.ckpt.revertHook = nil
	res, err := r.s.RevertTurn(t1, false)
	if err != nil || len(res.Reverted) != 3 || len(res.Conflicts) != 0 {
		t.Fatalf("rerun = %+v, %v", res, err)
	}
	for i := range 3 {
		if s, _ := r.file(fmt.Sprintf("f%d.txt", i)); s != "before\n" {
			t.Errorf("f%d.txt = %q", i, s)
		}
	}
}

var errStopRevert = fmt.Errorf("stop")

// A fork carries the checkpoints: its turn can be reverted on its own.
func TestForkCarriesCheckpoints(t *testing.T) {
	r := newCkptRig(t, "")
	r.put("a.txt", "one\n")
	t1 := r.turn(1, "edit", call("c1", "write_file", map[string]any{"path": "a.txt", "content": "two\n"}))
	forkID, err := r.m.Fork(r.s.ID(), "")
	if err != nil {
		t.Fatal(err)
	}
	fork, err := r.m.Load(forkID, config.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	files, err := fork.TurnChanges(t1, "a.txt")
	if err != nil || len(files.Files) != 1 || *files.Files[0].Before != "one\n" || *files.Files[0].After != "two\n" {
		t.Fatalf("fork's changes = %+v, %v", files, err)
	}
	if res, err := fork.RevertTurn(t1, false); err != nil || len(res.Reverted) != 1 {
		t.Fatalf("fork revert = %+v, %v", res, err)
	}
	if s, _ := r.file("a.txt"); s != "one\n" {
		t.Errorf("a.txt = %q", s)
	}
	if !r.s.ckpt.root.Exists(r.s.ID()) {
		t.Fatal("the original lost its checkpoints")
	}
	if err := r.m.Delete(forkID); err != nil {
		t.Fatal(err)
	}
	if r.s.ckpt.root.Exists(forkID) {
		t.Error("a deleted session's checkpoints are still there")
	}
}

// A workspace over checkpoints.max_bytes is said so once; the turn goes
// on, its write_file change stays revertable, its shell change is not
// recorded.
func TestTooLargeWorkspaceKeepsFileToolUndoOnly(t *testing.T) {
	r := newCkptRig(t, "[checkpoints]\nmax_bytes = 4096\n")
	r.put("big.bin", strings.Repeat("z", 64<<10))
	r.put("a.txt", "one\n")
	t1 := r.turn(1, "both", call("c1", "write_file", map[string]any{"path": "a.txt", "content": "two\n"}),
		call("c2", "shell", map[string]any{"command": "echo made > shell.txt"}))
	ev := r.rec.waitFor(t, TurnChanges{}, 1)
	if !strings.Contains(fmt.Sprint(ev["notice"]), "checkpoints.max_bytes") || strings.Contains(fmt.Sprint(ev["files"]), "shell.txt") {
		t.Fatalf("turn/changes = %v", ev)
	}
	r.turn(2, "again", call("c3", "write_file", map[string]any{"path": "b.txt", "content": "b\n"}))
	if ev := r.rec.waitFor(t, TurnChanges{}, 2); ev["notice"] != nil {
		t.Errorf("the notice was said twice: %v", ev)
	}
	res, err := r.s.RevertTurn(t1, false)
	if err != nil || len(res.Reverted) != 2 {
		t.Fatalf("revert = %+v, %v", res, err)
	}
	if s, _ := r.file("a.txt"); s != "one\n" {
		t.Errorf("a.txt = %q", s)
	}
	if _, ok := r.file("b.txt"); ok {
		t.Error("b.txt, created by the later turn, is still there")
	}
	if s, _ := r.file("shell.txt"); s != "made\n" {
		t.Errorf("the shell's file, which no checkpoint covers, = %q", s)
	}
}

// A prompt sent while a revert restores files is queued, and starts once
// the history is cut: its request holds nothing of the reverted turn.
func TestAPromptDuringARevertWaitsForIt(t *testing.T) {
	r := newCkptRig(t, "")
	r.put("a.txt", "one\n")
	t1 := r.turn(1, "reverted prompt", call("c1", "write_file", map[string]any{"path": "a.txt", "content": "two\n"}))
	r.srv.Enqueue(fakeopenai.Reply{Chunks: []string{"later"}})
	var during TurnStart
	r.s.ckpt.revertHook = func(string) {
		var err error
		if during, err = r.s.StartTurn("sent during the revert", nil, "1"); err != nil {
			t.Error(err)
		}
	}
	if _, err := r.s.RevertTurn(t1, false); err != nil {
		t.Fatal(err)
	}
	if during.Status != "queued" {
		t.Fatalf("a prompt during the revert: %+v", during)
	}
	r.rec.waitFor(t, TurnCompleted{}, 2)
	reqs := r.srv.Requests()
	for _, m := range reqs[len(reqs)-1].Messages {
		if strings.Contains(m.Content, "reverted prompt") {
			t.Errorf("the queued prompt's request holds %+v", m)
		}
	}
}
