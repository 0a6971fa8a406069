package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"scv/internal/fakeopenai"
	"scv/internal/smalldisk"
	"scv/runtime/config"
	"scv/runtime/provider"
	"scv/runtime/store"
)

// sessionOnDisk is bareSession writing to a log in st.
func sessionOnDisk(t *testing.T, st *store.Store) (*Session, *recorder) {
	t.Helper()
	s, rec := bareSession(t)
	l, err := st.Create(store.Header{ID: s.id, Cwd: "/w", CreatedAt: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	s.disk = disk{store: st, log: l}
	t.Cleanup(func() { s.mu.Lock(); s.closeDiskLocked(); s.mu.Unlock() })
	return s, rec
}

// closeAndRead closes s's log, as closing the session does, and reads back
// what st stored of it.
func closeAndRead(t *testing.T, st *store.Store, s *Session) store.Loaded {
	t.Helper()
	s.mu.Lock()
	s.closeDiskLocked()
	s.mu.Unlock()
	loaded, err := st.Read(s.id)
	if err != nil {
		t.Fatal(err)
	}
	return loaded
}

func lastSeq(rec *recorder) uint64 {
	if len(rec.events) == 0 {
		return 0
	}
	return rec.events[len(rec.events)-1].Seq
}

// TestAChangeThatCannotBeStoredIsRefused fills a real disk under a
// session. An enqueue, an edit and a rename used to be answered OK, told
// to every client and lost at the next load. Each is now refused with
// store_failed and leaves the session as it was; once space is back the
// session stores again, and its file holds every change a client saw,
// at seqs a reload never goes below.
func TestAChangeThatCannotBeStoredIsRefused(t *testing.T) {
	disk, st := smallDiskStore(t)
	s, rec := sessionOnDisk(t, st)
	first := enqueue(t, s, "first")[0]
	free := smalldisk.Fill(t, disk)
	// The log's last page may still have room for a few small records:
	// renames take it (and are stored) until the disk refuses one.
	kept := ""
	for i := 0; ; i++ {
		if i == 1000 {
			t.Fatal("1000 renames were stored on a full disk")
		}
		title := fmt.Sprintf("title %d", i)
		if err := s.Rename(title); err != nil {
			if CodeOf(err) != CodeStoreFailed {
				t.Fatalf("rename on a full disk: %v, want code %s", err, CodeStoreFailed)
			}
			break
		}
		kept = title
	}
	if s.title != kept {
		t.Fatalf("title %q after a refused rename, want %q", s.title, kept)
	}
	seen := lastSeq(rec)
	s.mu.Lock()
	_, _, err := s.enqueueLocked("second", resolved{}, "1", nil)
	s.mu.Unlock()
	if CodeOf(err) != CodeStoreFailed {
		t.Fatalf("enqueue on a full disk: %v, want code %s", err, CodeStoreFailed)
	}
	if _, err := s.UpdateQueue(first.QueueID, first.Revision, "edited"); CodeOf(err) != CodeStoreFailed {
		t.Fatalf("queue edit on a full disk: %v, want code %s", err, CodeStoreFailed)
	}
	if _, err := s.StartTurn("a turn", nil, "1"); CodeOf(err) != CodeStoreFailed {
		t.Fatalf("turn start on a full disk: %v, want code %s", err, CodeStoreFailed)
	}
	if s.active != nil || len(s.history) != 0 || s.turnCount != 0 || len(s.marks.order) != 0 {
		t.Fatalf("a refused turn start left a turn: active %v, history %d, turns %d", s.active, len(s.history), s.turnCount)
	}
	if got := queueOrder(s); got != "first" || s.Queue().Entries[0].Revision != first.Revision || s.title != kept {
		t.Fatalf("after refusals: queue %q (revision %d), title %q; want the state before", got, s.Queue().Entries[0].Revision, s.title)
	}
	if lastSeq(rec) != seen {
		t.Fatalf("refused changes reached the clients: seq %d after %d", lastSeq(rec), seen)
	}

	// What must go out goes out on a full disk, and a reload now (the
	// process killed while the disk is full) resumes above its seq.
	s.mu.Lock()
	s.announceLocked(QueueSnapshot{s.queueStateLocked()})
	s.mu.Unlock()
	if lastSeq(rec) != seen+1 {
		t.Fatalf("an event that must go out was not delivered on a full disk (seq %d after %d)", lastSeq(rec), seen)
	}
	if now, err := st.Read(s.id); err != nil || rebuild(now.Records).seq < lastSeq(rec) {
		t.Fatalf("a reload on the full disk resumes below seq %d: %v", lastSeq(rec), err)
	}
	seen = lastSeq(rec)

	free()
	second := enqueue(t, s, "second")[0]
	if second.QueueID != "q2" || lastSeq(rec) != seen+1 {
		t.Fatalf("after recovery: %s at seq %d, want q2 at %d", second.QueueID, lastSeq(rec), seen+1)
	}
	r := rebuild(closeAndRead(t, st, s).Records)
	if len(r.queue) != 2 || r.queue[0].Prompt != "first" || r.queue[1].Prompt != "second" || r.title != kept || r.seq < lastSeq(rec) {
		t.Fatalf("reloaded: queue %+v, title %q, seq %d (clients saw %d)", r.queue, r.title, r.seq, lastSeq(rec))
	}
}

// TestASessionNearItsBoundTakesNoNewPrompt: a session's file used to grow
// past what a load accepts and be lost at the next restart. Past 80 % of
// its bound (lowered here) a session refuses new prompts with
// session_too_large, and its file still loads whole.
func TestASessionNearItsBoundTakesNoNewPrompt(t *testing.T) {
	st, err := store.OpenWith(filepath.Join(t.TempDir(), "sessions"), store.Limits{MaxLogBytes: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := sessionOnDisk(t, st)
	s.active = &turn{id: "running"} // so prompts queue (the queue is stored)
	prompt := strings.Repeat("a long prompt ", 300)
	var refused error
	for i := 0; i < MaxQueueItems && refused == nil; i++ {
		_, refused = s.StartTurn(prompt, nil, "1")
	}
	s.active = nil
	if CodeOf(refused) != CodeSessionTooLarge {
		t.Fatalf("a session filling its file: %v, want code %s", refused, CodeSessionTooLarge)
	}
	if size := s.disk.log.Size(); size*100 < 64<<10*80 || size > 64<<10 {
		t.Fatalf("refused at %d bytes of %d", size, 64<<10)
	}
	// A steer is a new prompt too: it keeps the turn asking the model,
	// growing the file past what was kept for the turn and the queue.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.active = &turn{id: "running", ctx: ctx, cancel: cancel}
	if err := s.Steer("running", prompt, "1"); CodeOf(err) != CodeSessionTooLarge {
		t.Fatalf("a steer past 80 %% of the file's bound: %v, want code %s", err, CodeSessionTooLarge)
	}
	s.active = nil
	closeAndRead(t, st, s)
}

// TestAChangeAfterShutdownIsRefused: Shutdown closes the sessions' logs
// while connections may still send requests; a rename then was answered
// OK and lost at the restart. It is refused with store_failed.
func TestAChangeAfterShutdownIsRefused(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("[provider]\napi_key = \"k\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(filepath.Join(home, "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	m := NewManager(Options{Home: home, Getenv: func(string) string { return "" }, Store: st})
	s, _, err := m.Start(StartParams{Cwd: t.TempDir()}, &recorder{})
	if err != nil {
		t.Fatal(err)
	}
	m.Shutdown()
	if err := m.Rename(s.ID(), "after shutdown", config.Overrides{}); CodeOf(err) != CodeStoreFailed {
		t.Fatalf("rename after Shutdown: %v, want code %s", err, CodeStoreFailed)
	}
	page, err := NewManager(Options{Home: home, Store: st}).ListSessions(ListOptions{})
	if err != nil || len(page.Sessions) != 1 || page.Sessions[0].Title != "" {
		t.Fatalf("listed after the restart: %+v, %v", page.Sessions, err)
	}
}

// TestHistoryWaitsPastAReservationRecord: a seq.reserve record, written
// for an event that is not stored, carries no history; the messages
// waiting for a record go with the next stored one.
func TestHistoryWaitsPastAReservationRecord(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := sessionOnDisk(t, st)
	s.mu.Lock()
	s.addHistoryLocked(provider.Message{Role: provider.RoleUser, Content: "waiting"})
	if err := s.emitLocked(ToolOutput{"t1", "c1", "out"}); err != nil { // takes a reservation
		t.Fatal(err)
	}
	if err := s.emitLocked(SessionRenamed{Title: "carried"}); err != nil {
		t.Fatal(err)
	}
	s.mu.Unlock()
	loaded := closeAndRead(t, st, s)
	if r := rebuild(loaded.Records); len(loaded.Records) != 2 || loaded.Records[0].Type != recordSeqReserve || len(r.history) != 1 || r.history[0].Content != "waiting" {
		t.Fatalf("records %d (first %s), history %+v", len(loaded.Records), loaded.Records[0].Type, r.history)
	}
}

// TestARenameTheSidecarMissedIsListedAfterAll: on a full disk a rename's
// record fits in the log's last page while its sidecar cannot be written.
// The sidecar used to be written again only with the session's next
// stored record, so a session closed before one listed its old title
// (empty) for as long as it was stored, through every later load. Its
// close now writes the sidecar again when there is room, and a load
// whose sidecar disagrees with the log writes it from the log.
func TestARenameTheSidecarMissedIsListedAfterAll(t *testing.T) {
	for _, spaceBack := range []string{"before the close", "after the close"} {
		t.Run(spaceBack, func(t *testing.T) {
			mnt, st := smallDiskStore(t)
			home, cwd := homeFor(t, fakeopenai.New(t), ""), t.TempDir()
			s, _ := bareSession(t)
			l, err := st.Create(store.Header{ID: s.id, Cwd: cwd})
			if err != nil {
				t.Fatal(err)
			}
			s.disk = disk{store: st, log: l}
			free := smalldisk.Fill(t, mnt)
			kept := ""
			for i := 0; i < 1000 && s.Rename(fmt.Sprintf("title %d", i)) == nil; i++ {
				kept = s.title
			}
			if kept == "" || !s.disk.metaStale {
				t.Fatalf("no rename was stored without its sidecar (title %q)", kept)
			}
			if spaceBack == "before the close" {
				free()
			}
			s.mu.Lock()
			s.closeDiskLocked()
			s.mu.Unlock()
			if spaceBack == "after the close" {
				free()
				m := NewManager(Options{Home: home, Store: st, Getenv: func(string) string { return "" }})
				if _, err := m.Load(s.id, config.Overrides{}); err != nil {
					t.Fatal(err)
				}
				m.Shutdown()
			}
			page, err := st.List(store.ListOptions{Cwd: cwd})
			if err != nil || len(page.Sessions) != 1 || page.Sessions[0].Title != kept {
				t.Fatalf("listed %+v (%v), want the session titled %q", page.Sessions, err, kept)
			}
		})
	}
}

// TestTheLastSeqsAreKeptForWhatMustGoOut: near store.MaxSeq a stream's
// reservation used to be stored past MaxSeq (so a reload skipped it as
// damage and resumed below the deltas a client saw), and refusable events
// took every seq up to MaxSeq, so a turn's end, which must go out, was
// dropped unseen. The last seqHeadroom seqs are kept for the events that
// must go out, and no reservation passes MaxSeq.
func TestTheLastSeqsAreKeptForWhatMustGoOut(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	s, rec := sessionOnDisk(t, st)
	s.mu.Lock()
	s.seq = store.MaxSeq - 2*seqHeadroom
	s.disk.reserved.Store(s.seq)
	refused := 0
	for range 2 * seqHeadroom {
		if err := s.emitLocked(AssistantDelta{TurnID: "t1", Content: "x"}); err != nil {
			if CodeOf(err) != CodeSessionTooLarge {
				t.Fatalf("a delta near MaxSeq: %v, want %s", err, CodeSessionTooLarge)
			}
			refused++
		}
	}
	streamed := lastSeq(rec)
	s.announceLocked(TurnFailed{TurnID: "t1", Code: string(CodeSessionTooLarge), Message: "no seq left"})
	s.mu.Unlock()
	if refused == 0 || lastSeq(rec) != streamed+1 {
		t.Fatalf("%d deltas refused; the turn's end went out at seq %d after %d", refused, lastSeq(rec), streamed)
	}
	r := rebuild(closeAndRead(t, st, s).Records)
	if len(r.problems) > 0 || r.seq < lastSeq(rec) || r.seq > store.MaxSeq {
		t.Fatalf("a reload resumes at seq %d (clients saw %d), problems %v", r.seq, lastSeq(rec), r.problems)
	}
}

// TestACompactionThatCannotBeStoredLeavesTheHistory: a compaction whose
// record the log refused (here: past the file's bound) used to keep its
// cut in memory, so the history the model was sent next differed from
// the one a reload rebuilds. A refused compaction now leaves the history
// and the turn marks as they were.
func TestACompactionThatCannotBeStoredLeavesTheHistory(t *testing.T) {
	st, err := store.OpenWith(filepath.Join(t.TempDir(), "sessions"), store.Limits{MaxLogBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	s, rec := sessionOnDisk(t, st)
	s.cfg.Context.MaxTokens = 100
	s.mu.Lock()
	for i := range 3 {
		s.addHistoryLocked(provider.Message{Role: provider.RoleUser, Content: fmt.Sprintf("%d%s", i, strings.Repeat("x", 2000))})
	}
	s.mu.Unlock()
	if err := s.compact(&turn{id: "t1"}); CodeOf(err) != CodeSessionTooLarge {
		t.Fatalf("a compaction past the file's bound: %v, want %s", err, CodeSessionTooLarge)
	}
	if len(s.history) != 3 || s.marks.base != 0 || len(rec.events) != 0 {
		t.Fatalf("a refused compaction left %d messages (base %d) and sent %d events", len(s.history), s.marks.base, len(rec.events))
	}
}

// smallDiskStore opens a store on a small tmpfs the test mounts, and
// returns the mount (to fill and free) with it.
func smallDiskStore(t *testing.T) (string, *store.Store) {
	t.Helper()
	mnt := smalldisk.Mount(t, 1<<20)
	st, err := store.Open(filepath.Join(mnt, "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	return mnt, st
}
