package session

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"scv/internal/fakeopenai"
	"scv/internal/smalldisk"
)

// waitUntil waits for cond, checked after each event rec receives.
func (r *waitingRecorder) waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		changed := r.changed
		r.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("waited in vain for %s", what)
		}
	}
}

// TestAFullDiskPausesTheQueue: a turn failed by a full disk used to hand
// over to the next queued prompt, which ran, failed the same way, and so
// on through the whole queue: every prompt a client had queued was
// consumed, the model called for each, and the turns' starts and ends
// (which must go out) took seqs past the last durable reservation, so a
// reload resumed below what the clients saw. A turn that fails because
// the session cannot be stored now pauses the session, keeping its queue
// for when there is room again.
func TestAFullDiskPausesTheQueue(t *testing.T) {
	srv, mnt, m, s, rec := sessionOnSmallDisk(t)
	hold := make(chan struct{})
	srv.Enqueue(fakeopenai.Reply{Chunks: []string{"held"}, Hold: hold})
	startTurn(t, s, "running")
	rec.waitFor(t, AssistantDelta{}, 1)
	const queued = 30
	for i := range queued {
		if res, err := s.StartTurn(fmt.Sprintf("queued %d", i), nil, "1"); err != nil || res.Status != "queued" {
			t.Fatalf("queue a prompt: %+v, %v", res, err)
		}
		srv.Enqueue(fakeopenai.Reply{Chunks: []string{"answer"}})
	}
	free := smalldisk.Fill(t, mnt)
	for i := 0; i < 1000 && s.Rename(fmt.Sprintf("title %d", i)) == nil; i++ {
	} // the log's last page is full now
	// The stream has used its durable reservation up to the headroom.
	s.mu.Lock()
	for s.seq+seqHeadroom+1 < s.disk.reserved.Load() {
		if err := s.emitLocked(ToolOutput{"t", "c", "x"}); err != nil {
			t.Fatal(err)
		}
	}
	s.mu.Unlock()
	close(hold)
	rec.waitFor(t, TurnFailed{}, 1)
	rec.waitUntil(t, "the session to settle", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.active == nil && (s.paused || len(s.queue) == 0)
	})
	if n := len(srv.Requests()); n != 1 || !s.Queue().Paused || len(s.Queue().Entries) != queued {
		t.Fatalf("after the full disk failed a turn: %d model requests, queue %+v; want 1 request and %d prompts paused", n, s.Queue(), queued)
	}
	rec.mu.Lock()
	seen := rec.events[len(rec.events)-1].Seq
	rec.mu.Unlock()
	if now, err := m.opts.Store.Read(s.ID()); err != nil || rebuild(now.Records).seq < seen {
		t.Fatalf("a reload now (kill -9) resumes at seq %d, below %d that a client saw (%v)", rebuild(now.Records).seq, seen, err)
	}

	free()
	if _, err := s.Pause(false); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, TurnCompleted{}, 1)
}

// TestAFullDiskKeepsSeqsForEverySteerRequeued: a turn failed by a full
// disk with its reservation used up to the headroom, and maxQueueItems
// steers waiting, ends with its terminal event, one queue.enqueued per
// steer and the pause: more events that must go out than the headroom
// used to keep (64), so a reload resumed below the last seqs a client
// saw. The headroom covers them.
func TestAFullDiskKeepsSeqsForEverySteerRequeued(t *testing.T) {
	mnt, st := smallDiskStore(t)
	s, rec := sessionOnDisk(t, st)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tr := &turn{id: "t1", ctx: ctx, cancel: cancel}
	s.active = tr
	for i := range MaxQueueItems {
		if err := s.Steer("t1", fmt.Sprintf("steer %d", i), "1"); err != nil {
			t.Fatal(err)
		}
	}
	smalldisk.Fill(t, mnt)
	for i := 0; i < 1000 && s.Rename(fmt.Sprintf("title %d", i)) == nil; i++ {
	} // the log's last page is full now
	s.mu.Lock()
	for s.seq+seqHeadroom < s.disk.reserved.Load() {
		if err := s.emitLocked(ToolOutput{"t1", "c", "x"}); err != nil {
			t.Fatal(err)
		}
	}
	s.mu.Unlock()
	err := s.emitTurn(AssistantDelta{"t1", "refused"})
	if CodeOf(err) != CodeStoreFailed {
		t.Fatalf("a delta past the headroom on a full disk: %v, want %s", err, CodeStoreFailed)
	}
	s.endTurn(tr, outcome{err: err})
	if got := len(s.Queue().Entries); got != MaxQueueItems || !s.Queue().Paused {
		t.Fatalf("after the turn's end: %d queued (paused %v), want %d paused", got, s.Queue().Paused, MaxQueueItems)
	}
	if now, err := st.Read(s.id); err != nil || rebuild(now.Records).seq < lastSeq(rec) {
		t.Fatalf("a reload now (kill -9) resumes at seq %d, below %d that a client saw (%v)", rebuild(now.Records).seq, lastSeq(rec), err)
	}
}

// TestAnIdleSessionThatCannotBeWrittenStaysLoaded: the idle reaper used
// to close a session whose records waited in memory for room on a full
// disk, so the close's failed sync lost them while the process went on
// (what is kept is to be lost only if the process stops). A session
// that cannot be written stays loaded; once there is room, it is closed
// with everything written.
func TestAnIdleSessionThatCannotBeWrittenStaysLoaded(t *testing.T) {
	_, mnt, m, s, rec := sessionOnSmallDisk(t)
	s.Detach(rec)
	if err := s.Rename("reserves seqs ahead"); err != nil {
		t.Fatal(err)
	}
	big := AssistantCompleted{TurnID: "t", Content: strings.Repeat("kept in memory ", 1000)}
	s.mu.Lock()
	err := s.emitLocked(big) // buffered: it is not synced
	free := smalldisk.Fill(t, mnt)
	s.syncDiskLocked() // fails: the disk is full
	s.markIdleLocked()
	s.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if closed := m.CloseIdle(-time.Hour); len(closed) != 0 {
		t.Fatalf("the reaper closed %v, whose records could not be written", closed)
	}
	free()
	if closed := m.CloseIdle(-time.Hour); len(closed) != 1 {
		t.Fatalf("once there is room the reaper closed %v, want the session", closed)
	}
	loaded, err := m.opts.Store.Read(s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if last := loaded.Records[len(loaded.Records)-1]; last.Type != "assistant.completed" {
		t.Fatalf("the file ends with a %s record, want the answer kept in memory", last.Type)
	}
}

// sessionOnSmallDisk starts a session of a manager whose store is on a
// small tmpfs (mnt, to fill and free), answered by srv.
func sessionOnSmallDisk(t *testing.T) (srv *fakeopenai.Server, mnt string, m *Manager, s *Session, rec *waitingRecorder) {
	t.Helper()
	srv = fakeopenai.New(t)
	home := homeFor(t, srv, "")
	mnt, st := smallDiskStore(t)
	m = NewManager(Options{Home: home, Store: st, Getenv: func(string) string { return "" }})
	t.Cleanup(func() { m.Shutdown() })
	rec = newWaitingRecorder()
	s, _, err := m.Start(StartParams{Cwd: t.TempDir()}, rec)
	if err != nil {
		t.Fatal(err)
	}
	return srv, mnt, m, s, rec
}
