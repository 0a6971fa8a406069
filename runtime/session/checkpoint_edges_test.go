package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"scv/internal/fakeopenai"
	"scv/runtime/provider"
)

// A session closed while turn N's changes are being taken and turn N+1
// (started meanwhile, nothing queued) runs: N+1 ends first, cancelled by
// the close, and must not finish the close before N's changes are out and
// stored.
func TestCloseWhileTheNextTurnRunsDuringASettleStoresTheChanges(t *testing.T) {
	r := newCkptRig(t, "")
	entered, release := holdFinish(r)
	answer := make(chan struct{})
	defer close(answer)
	r.srv.Enqueue(fakeopenai.Reply{ToolCalls: []provider.ToolCall{call("c1", "write_file", map[string]any{"path": "a.txt", "content": "two\n"})}},
		fakeopenai.Reply{Chunks: []string{"done"}},
		fakeopenai.Reply{Chunks: []string{"never"}, Hold: answer})
	t1 := startTurn(t, r.s, "edit")
	<-entered
	startTurn(t, r.s, "just talk") // nothing queued: it starts at once
	if _, err := r.srv.WaitRequests(3, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := r.m.Close(r.s.ID()); err != nil {
		t.Fatal(err)
	}
	r.rec.waitFor(t, TurnCancelled{}, 1)
	close(release)
	r.s.turns.Wait() // both turns' goroutines, the checkpoint's included, are done
	expectChangesBeforeClose(t, r, t1)
}

// A file the user deletes after the turn's tools ended, before the turn's
// after is taken, passes for the turn's deletion: a revert then brings it
// back without a word. Like a late edit, it must be a conflict.
func TestAFileDeletedBeforeTheTurnsAfterIsTakenIsAConflict(t *testing.T) {
	r := newCkptRig(t, "")
	r.put("a.txt", "one\n")
	lateChange(r, "a.txt", func() {
		r.put("a.txt", "user\n")
		if err := os.Remove(filepath.Join(r.ws, "a.txt")); err != nil {
			t.Error(err)
		}
	})
	t1 := r.turn(1, "edit", call("c1", "write_file", map[string]any{"path": "a.txt", "content": "two\n"}))
	r.rec.waitFor(t, TurnChanges{}, 1)
	res, err := r.s.RevertTurn(t1, false)
	if err != nil || len(res.Conflicts) != 1 || len(res.Reverted) != 0 {
		t.Fatalf("revert = %+v, %v; want a.txt as a conflict", res, err)
	}
	if _, ok := r.file("a.txt"); ok {
		t.Error("the user's deletion was undone")
	}
}

// A prompt sent while the session is idle starts at once even when it is
// paused (pausing holds back queued prompts only, docs/protocol.md). The
// session is idle while its last turn's changes are taken too; a paused
// queue then must not swallow the prompt until the session is resumed.
func TestAPromptToAPausedSessionStartsDuringASettle(t *testing.T) {
	r := newCkptRig(t, "")
	entered, release := holdFinish(r)
	defer close(release)
	answer := make(chan struct{})
	r.srv.Enqueue(fakeopenai.Reply{ToolCalls: []provider.ToolCall{call("c1", "write_file", map[string]any{"path": "a.txt", "content": "two\n"})}},
		fakeopenai.Reply{Chunks: []string{"done"}, Hold: answer},
		fakeopenai.Reply{Chunks: []string{"now"}})
	startTurn(t, r.s, "edit")
	if _, err := r.srv.WaitRequests(2, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if res, err := r.s.StartTurn("for later", nil, "1"); err != nil || res.Status != "queued" {
		t.Fatalf("prompt for later: %+v, %v", res, err)
	}
	if _, err := r.s.Pause(true); err != nil {
		t.Fatal(err)
	}
	close(answer)
	r.rec.waitFor(t, TurnCompleted{}, 1)
	<-entered
	if res, err := r.s.StartTurn("now", nil, "1"); err != nil || res.Status != "started" {
		t.Fatalf("a prompt to the idle paused session: %+v, %v; want it started, as when no changes are being taken", res, err)
	}
}

// A file the turn changed and the user deleted since is a conflict of the
// revert, with a diff from what the turn left to nothing; it must not fail
// the revert (the diff's "now" side is git's empty blob, which the
// checkpoint repository need not hold).
func TestARevertOfAFileDeletedSinceIsAConflict(t *testing.T) {
	r := newCkptRig(t, "")
	r.put("a.txt", "one\n")
	t1 := r.turn(1, "edit", call("c1", "write_file", map[string]any{"path": "a.txt", "content": "two\n"}))
	r.rec.waitFor(t, TurnChanges{}, 1)
	if err := os.Remove(filepath.Join(r.ws, "a.txt")); err != nil {
		t.Fatal(err)
	}
	res, err := r.s.RevertTurn(t1, false)
	if err != nil || len(res.Conflicts) != 1 || len(res.Reverted) != 0 {
		t.Fatalf("revert = %+v, %v; want a.txt as a conflict", res, err)
	}
	if d := res.Conflicts[0].Diff; !strings.Contains(d, "-two") {
		t.Errorf("conflict diff = %q; want the turn's text removed", d)
	}
}

// A file the turn created and the user changed again before the turn's
// after was taken is a late conflict whose diff runs from "absent" (git's
// empty blob) to now: the revert must report it, not fail on the diff.
func TestALateChangeToAFileTheTurnCreatedIsAConflict(t *testing.T) {
	r := newCkptRig(t, "")
	lateChange(r, "b.txt", func() { r.put("b.txt", "user\n") })
	t1 := r.turn(1, "create", call("c1", "write_file", map[string]any{"path": "b.txt", "content": "new\n"}))
	r.rec.waitFor(t, TurnChanges{}, 1)
	res, err := r.s.RevertTurn(t1, false)
	if err != nil || len(res.Conflicts) != 1 || len(res.Reverted) != 0 {
		t.Fatalf("revert = %+v, %v; want b.txt as a conflict", res, err)
	}
	if s, _ := r.file("b.txt"); s != "user\n" {
		t.Errorf("b.txt = %q; the user's text must stay", s)
	}
}
