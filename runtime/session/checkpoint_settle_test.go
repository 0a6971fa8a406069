package session

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"scv/internal/fakeopenai"
	"scv/runtime/config"
	"scv/runtime/provider"
)

// holdFinish makes the rig's next turn checkpoints wait, once their
// terminal event is out, until release is closed; entered is closed when
// the first one waits.
func holdFinish(r *ckptRig) (entered, release chan struct{}) {
	entered, release = make(chan struct{}), make(chan struct{})
	first := true
	r.s.ckpt.finishHook = func() {
		if first {
			first = false
			close(entered)
		}
		<-release
	}
	return entered, release
}

// lateChange makes the rig's next turn checkpoint, as it is finished (after
// the turn's tools), find change made to the workspace later than those
// tools by the file clock, which may run a tick behind time.Now: change is
// made again until the ctime of what it changed (path, or its directory
// when change removes it) says so.
func lateChange(r *ckptRig, path string, change func()) {
	r.s.ckpt.finishHook = func() {
		after := time.Now()
		for {
			change()
			info, err := os.Stat(filepath.Join(r.ws, path))
			if err != nil {
				info, err = os.Stat(filepath.Dir(filepath.Join(r.ws, path)))
			}
			if err != nil || info.Sys().(*syscall.Stat_t).Ctim.Nano() > after.UnixNano() {
				return
			}
		}
	}
}

// startHeldEdit starts a turn that writes a.txt and then answers, once
// holdFinish holds its checkpoint; it returns the turn's id.
func startHeldEdit(t *testing.T, r *ckptRig, more ...fakeopenai.Reply) string {
	r.srv.Enqueue(append([]fakeopenai.Reply{
		{ToolCalls: []provider.ToolCall{call("c1", "write_file", map[string]any{"path": "a.txt", "content": "two\n"})}},
		{Chunks: []string{"done"}}}, more...)...)
	return startTurn(t, r.s, "edit")
}

// positions returns the position of each payload in events, matching by type
// and turn, -1 when absent.
func positions(events []Event, match ...func(Payload) bool) []int {
	at := make([]int, len(match))
	for i, m := range match {
		at[i] = -1
		for j, ev := range events {
			if m(ev.Payload) {
				at[i] = j
				break
			}
		}
	}
	return at
}

func of[T Payload](turnID string) func(Payload) bool {
	return func(p Payload) bool {
		v, ok := p.(T)
		return ok && (turnID == "" || reflect.ValueOf(v).FieldByName("TurnID").String() == turnID)
	}
}

func (r *waitingRecorder) snapshot() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

// A prompt queued behind a turn starts once that turn's changes are out,
// and a prompt sent meanwhile joins the queue rather than jump it.
func TestAQueuedTurnStartsAfterTheChangesOfTheTurnBefore(t *testing.T) {
	r := newCkptRig(t, "")
	entered, release := holdFinish(r)
	answer := make(chan struct{})
	r.srv.Enqueue(fakeopenai.Reply{ToolCalls: []provider.ToolCall{call("c1", "write_file", map[string]any{"path": "a.txt", "content": "two\n"})}},
		fakeopenai.Reply{Chunks: []string{"done"}, Hold: answer},
		fakeopenai.Reply{Chunks: []string{"second"}}, fakeopenai.Reply{Chunks: []string{"third"}})
	t1 := startTurn(t, r.s, "edit")
	if _, err := r.srv.WaitRequests(2, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if res, err := r.s.StartTurn("second", nil, "1"); err != nil || res.Status != "queued" {
		t.Fatalf("second prompt: %+v, %v", res, err)
	}
	close(answer)
	end := r.rec.waitFor(t, TurnCompleted{}, 1)
	if end["changesPending"] != true {
		t.Fatalf("the terminal event does not announce the changes: %v", end)
	}
	<-entered
	if q := r.s.Queue(); len(q.Entries) != 1 {
		t.Fatalf("the queue moved before the changes were out: %+v", q)
	}
	if res, err := r.s.StartTurn("third", nil, "1"); err != nil || res.Status != "queued" {
		t.Fatalf("a prompt sent while the queue waits: %+v, %v; want it queued behind the second", res, err)
	}
	close(release)
	r.rec.waitFor(t, TurnCompleted{}, 3)
	at := positions(r.rec.snapshot(), of[TurnCompleted](t1), of[TurnChanges](t1), of[QueueDequeued](""))
	if !(at[0] >= 0 && at[0] < at[1] && at[1] < at[2]) {
		t.Errorf("events at %v; want the terminal event, then the changes, then the next turn", at)
	}
}

// A session closed while its last turn's changes are being taken closes
// once they are stored.
func TestClosingWhileTheChangesAreTakenStoresThem(t *testing.T) {
	r := newCkptRig(t, "")
	entered, release := holdFinish(r)
	t1 := startHeldEdit(t, r)
	<-entered
	if err := r.m.Close(r.s.ID()); err != nil {
		t.Fatal(err)
	}
	close(release)
	r.rec.waitFor(t, SessionClosed{}, 1)
	expectChangesBeforeClose(t, r, t1)
}

// expectChangesBeforeClose checks turn id's changes went out before the
// session's close, and are in its file.
func expectChangesBeforeClose(t *testing.T, r *ckptRig, id string) {
	t.Helper()
	at := positions(r.rec.snapshot(), of[TurnChanges](id), of[SessionClosed](""))
	if !(at[0] >= 0 && at[0] < at[1]) {
		t.Fatalf("events at %v; want turn %s's changes before the close", at, id)
	}
	loaded, err := r.m.opts.Store.Read(r.s.ID())
	if err != nil {
		t.Fatal(err)
	}
	events, _ := StoredEvents(r.s.ID(), loaded.Records)
	if positions(events, of[TurnChanges](id))[0] < 0 {
		t.Error("the changes were not stored")
	}
}

// A fork at a turn keeps that turn's changes even when they were stored
// after the next turn began, numbered on from the fork's last record.
func TestAForkKeepsChangesStoredAfterTheNextTurnBegan(t *testing.T) {
	r := newCkptRig(t, "")
	entered, release := holdFinish(r)
	t1 := startHeldEdit(t, r, fakeopenai.Reply{Chunks: []string{"chat"}})
	<-entered
	startTurn(t, r.s, "just talk") // nothing queued: it starts at once
	r.rec.waitFor(t, TurnCompleted{}, 2)
	close(release)
	r.rec.waitFor(t, TurnChanges{}, 1)
	forkID, err := r.m.Fork(r.s.ID(), t1)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := r.m.opts.Store.Read(forkID)
	if err != nil {
		t.Fatal(err)
	}
	for i, rec := range loaded.Records {
		if i > 0 && rec.Seq <= loaded.Records[i-1].Seq {
			t.Fatalf("the fork's seqs go back at record %d: %d after %d", i, rec.Seq, loaded.Records[i-1].Seq)
		}
	}
	events, _ := StoredEvents(forkID, loaded.Records)
	at := positions(events, of[TurnCompleted](t1), of[TurnChanges](t1), of[TurnStarted](""))
	if at[1] < 0 || at[1] < at[0] {
		t.Errorf("the fork's events at %v; want turn %s's changes after its end", at, t1)
	}
	started := 0
	for _, ev := range events {
		if of[TurnStarted]("")(ev.Payload) {
			started++
		}
	}
	if started != 1 {
		t.Errorf("the fork holds %d turns; want only %s", started, t1)
	}
}

// A turn whose first change waits for the turn before's checkpoint can be
// cancelled meanwhile: it ends at once, and its tool does not run.
func TestATurnWaitingForTheCheckpointBeforeItCanBeCancelled(t *testing.T) {
	r := newCkptRig(t, "")
	entered, release := holdFinish(r)
	defer close(release)
	r.srv.Enqueue(fakeopenai.Reply{ToolCalls: []provider.ToolCall{call("c1", "write_file", map[string]any{"path": "a.txt", "content": "one\n"})}},
		fakeopenai.Reply{Chunks: []string{"done"}},
		fakeopenai.Reply{ToolCalls: []provider.ToolCall{call("c2", "write_file", map[string]any{"path": "b.txt", "content": "two\n"})}})
	startTurn(t, r.s, "first")
	<-entered
	t2 := startTurn(t, r.s, "second") // nothing queued: it starts at once
	r.rec.waitFor(t, ToolStarted{}, 2)
	if err := r.s.CancelTurn(t2); err != nil {
		t.Fatal(err)
	}
	r.rec.waitFor(t, TurnCancelled{}, 1)
	if _, ok := r.file("b.txt"); ok {
		t.Error("the cancelled turn's write ran")
	}
}

// A session whose checkpoints another session's accounting dropped (the
// least recently used go first) takes new ones at its next change.
func TestASessionWhoseCheckpointsWereDroppedTakesNewOnes(t *testing.T) {
	r := newCkptRig(t, "[checkpoints]\nmax_bytes = 3000\n")
	r.put("a.txt", strings.Repeat("a", 500))
	r.turn(1, "first", call("c1", "write_file", map[string]any{"path": "a.txt", "content": strings.Repeat("b", 500)}))
	r.rec.waitFor(t, TurnChanges{}, 1)

	other := newWaitingRecorder()
	ws := t.TempDir()
	s2, _, err := r.m.Start(StartParams{Cwd: ws}, other)
	if err != nil {
		t.Fatal(err)
	}
	for i, size := range []int{500, 2000} {
		r.srv.Enqueue(fakeopenai.Reply{ToolCalls: []provider.ToolCall{call("c1", "write_file", map[string]any{"path": "big.txt", "content": strings.Repeat("x", size)})}},
			fakeopenai.Reply{Chunks: []string{"done"}})
		startTurn(t, s2, "grow")
		other.waitFor(t, TurnChanges{}, i+1)
	}
	if r.s.ckpt.root.Exists(r.s.ID()) {
		t.Fatal("the other session's growth did not drop the first session's checkpoints; the test proves nothing")
	}

	id := r.turn(2, "again", call("c1", "write_file", map[string]any{"path": "a.txt", "content": "c"}))
	if ev := r.rec.waitFor(t, TurnChanges{}, 2); len(ev["files"].([]any)) != 1 {
		t.Fatalf("changes after the checkpoints were dropped = %v", ev)
	}
	if res, err := r.s.RevertTurn(id, false); err != nil || len(res.Reverted) != 1 {
		t.Fatalf("revert = %+v, %v", res, err)
	}
	if s, _ := r.file("a.txt"); s != strings.Repeat("b", 500) {
		t.Errorf("a.txt = %q after the revert", s)
	}
}

// A session closed while its last turn's changes are being taken can be
// loaded again at once: the load waits for the close to finish rather
// than fail on the log the closing session still holds.
func TestASessionClosingDuringASettleLoadsAgain(t *testing.T) {
	r := newCkptRig(t, "")
	entered, release := holdFinish(r)
	t1 := startHeldEdit(t, r)
	<-entered
	if err := r.m.Close(r.s.ID()); err != nil {
		t.Fatal(err)
	}
	loaded := make(chan error, 1)
	go func() {
		s, err := r.m.Load(r.s.ID(), config.Overrides{})
		if err == nil && s == r.s {
			err = errors.New("Load gave back the closed session")
		}
		loaded <- err
	}()
	close(release)
	if err := <-loaded; err != nil {
		t.Fatalf("load after a close during a settle: %v", err)
	}
	s, err := r.m.Get(r.s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.TurnChanges(t1, ""); err != nil {
		t.Errorf("the reloaded session's changes of %s: %v", t1, err)
	}
}

// Shutdown waits for a session that was closed while its last turn's
// changes were being taken: the checkpoint work must not outlive the
// manager (it wrote into a home being removed, and used a workspace gone).
func TestShutdownWaitsForASessionClosingDuringASettle(t *testing.T) {
	r := newCkptRig(t, "")
	entered, release := holdFinish(r)
	startHeldEdit(t, r)
	<-entered
	if err := r.m.Close(r.s.ID()); err != nil {
		t.Fatal(err)
	}
	close(release)
	if !r.m.Shutdown() {
		t.Fatal("Shutdown reports that the sessions did not end")
	}
	if !isClosed(r.s) {
		t.Fatal("Shutdown returned while a closed session's checkpoint was still being finished")
	}
}
