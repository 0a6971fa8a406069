package session

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"scv/internal/fakeopenai"
	"scv/internal/smalldisk"
	"scv/runtime/provider"
)

// kinds lists the types of the events r holds, in order.
func (r *waitingRecorder) kinds() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, ev := range r.events {
		out = append(out, reflect.TypeOf(ev.Payload).Name())
	}
	return out
}

// lastUser is the last user message of a request.
func lastUser(req fakeopenai.RecordedRequest) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			return req.Messages[i].Content
		}
	}
	return ""
}

// A turn cancelled with steers waiting hands them to the front of the
// queue, in order, after its terminal event; they run next as turns.
func TestACancelledTurnsSteersRunNextFromTheQueue(t *testing.T) {
	srv := fakeopenai.New(t)
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	srv.Enqueue(fakeopenai.Reply{Chunks: []string{"thinking"}, Hold: hold})
	s, rec := openAISession(t, srv, "")
	first := startTurn(t, s, "first")
	if _, err := srv.WaitRequests(1, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if res, err := s.StartTurn("queued before", nil, "2"); err != nil || res.Status != "queued" {
		t.Fatalf("queue a prompt: %+v, %v", res, err)
	}
	for _, p := range []string{"steer one", "steer two"} {
		if err := s.Steer(first, p, "3"); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.CancelTurn(first); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, TurnCancelled{}, 1)
	for i, want := range []string{"steer one", "steer two"} {
		enq := rec.waitFor(t, QueueEnqueued{}, i+2)
		entry := enq["entry"].(map[string]any)
		if entry["prompt"] != want || enq["position"] != float64(i) || entry["submitter"] != "3" {
			t.Errorf("queue/enqueued #%d = %v, want %q at %d from submitter 3", i+2, enq, want, i)
		}
	}
	started := rec.waitFor(t, TurnStarted{}, 2)
	if started["prompt"] != "steer one" || started["queueId"] == nil {
		t.Errorf("the next turn = %v, want the first steer from the queue", started)
	}
	kinds := strings.Join(rec.kinds(), ",")
	if !strings.Contains(kinds, "TurnCancelled,QueueEnqueued,QueueEnqueued,QueueDequeued,TurnStarted") {
		t.Errorf("events = %s; want the cancel, then the steers queued, then the first of them started", kinds)
	}
	rec.waitFor(t, TurnCompleted{}, 3)
	reqs := srv.Requests()
	var asked []string
	for _, r := range reqs[1:] {
		asked = append(asked, lastUser(r))
	}
	if !slices.Equal(asked, []string{"steer one", "steer two", "queued before"}) {
		t.Errorf("the turns after the cancel asked %q", asked)
	}
}

// A turn that fails with a steer waiting (here at agent.max_steps) queues
// it too; a paused session keeps it queued until resumed, like any queued
// prompt.
func TestAFailedTurnsSteerWaitsInAPausedQueue(t *testing.T) {
	srv := fakeopenai.New(t)
	hold := make(chan struct{})
	srv.Enqueue(fakeopenai.Reply{Hold: hold, ToolCalls: []provider.ToolCall{{ID: "c1", Name: "list_dir", Arguments: `{"path":"."}`}}})
	s, rec := openAISession(t, srv, "[agent]\nmax_steps = 1\n")
	first := startTurn(t, s, "look around")
	if _, err := srv.WaitRequests(1, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Pause(true); err != nil {
		t.Fatal(err)
	}
	if err := s.Steer(first, "then stop", "7"); err != nil {
		t.Fatal(err)
	}
	close(hold)
	if failed := rec.waitFor(t, TurnFailed{}, 1); failed["code"] != "max_steps" {
		t.Fatalf("turn/failed = %v", failed)
	}
	enq := rec.waitFor(t, QueueEnqueued{}, 1)
	if enq["entry"].(map[string]any)["prompt"] != "then stop" || enq["position"] != float64(0) {
		t.Fatalf("queue/enqueued = %v", enq)
	}
	// endTurn queues and starts under one hold of the lock: what Queue
	// sees now is what the paused session did.
	if q := s.Queue(); len(q.Entries) != 1 || !q.Paused || q.Entries[0].Prompt != "then stop" {
		t.Fatalf("queue after the failure = %+v", q)
	}
	if _, err := s.Pause(false); err != nil {
		t.Fatal(err)
	}
	if started := rec.waitFor(t, TurnStarted{}, 2); started["prompt"] != "then stop" {
		t.Errorf("resumed: turn/started = %v", started)
	}
	rec.waitFor(t, TurnCompleted{}, 1)
	if got := lastUser(srv.Requests()[1]); got != "then stop" {
		t.Errorf("the resumed turn asked %q", got)
	}
}

// A closing session drops a waiting steer with its queue: nothing is
// queued after the close.
func TestAClosedSessionDropsItsSteers(t *testing.T) {
	srv := fakeopenai.New(t)
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	srv.Enqueue(fakeopenai.Reply{Hold: hold})
	s, rec := openAISession(t, srv, "")
	first := startTurn(t, s, "first")
	if _, err := srv.WaitRequests(1, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := s.Steer(first, "never mind", "1"); err != nil {
		t.Fatal(err)
	}
	s.close()
	rec.waitFor(t, SessionClosed{}, 1)
	if kinds := rec.kinds(); slices.Contains(kinds, "QueueEnqueued") {
		t.Errorf("a closed session queued its steer: %v", kinds)
	}
}

// Steers count against the queue's limits with the queue, so handing
// them to the queue never takes it past them.
func TestSteersAndTheQueueShareTheLimits(t *testing.T) {
	s, _ := bareSession(t)
	s.active = &turn{id: "t1", ctx: s.ctx, cancel: func() {}}
	for i := range MaxQueueItems - 1 {
		enqueue(t, s, string(rune('a'+i%26)))
	}
	if err := s.Steer("t1", "last room", "1"); err != nil {
		t.Fatal(err)
	}
	if err := s.Steer("t1", "no room", "1"); CodeOf(err) != CodeQueueLimit {
		t.Errorf("steer past maxQueueItems with the queue: %v", err)
	}
	s.mu.Lock()
	_, _, err := s.enqueueLocked("no room either", resolved{}, "1", nil)
	s.mu.Unlock()
	if CodeOf(err) != CodeQueueLimit {
		t.Errorf("queue past maxQueueItems with a steer: %v", err)
	}
	s.mu.Lock()
	s.requeueSteersLocked(s.active)
	s.mu.Unlock()
	if q := s.Queue().Entries; len(q) != MaxQueueItems || q[0].Prompt != "last room" {
		t.Errorf("after the requeue: %d entries, first %q", len(q), q[0].Prompt)
	}
}

// A reload puts an entry where queue.enqueued said: a requeued steer at
// the front.
func TestQueueEnqueuedIsRebuiltAtItsPosition(t *testing.T) {
	r := rebuilt{approved: map[string]bool{}}
	r.apply(QueueEnqueued{QueueEntry{QueueID: "q1", Prompt: "later"}, 0}, nil)
	r.apply(QueueEnqueued{QueueEntry{QueueID: "q2", Prompt: "steer one"}, 0}, nil)
	r.apply(QueueEnqueued{QueueEntry{QueueID: "q3", Prompt: "steer two"}, 1}, nil)
	var got []string
	for _, e := range r.queue {
		got = append(got, e.QueueID)
	}
	if !slices.Equal(got, []string{"q2", "q3", "q1"}) {
		t.Errorf("rebuilt queue = %v", got)
	}
}

// TestSteersAFullDiskRefusedAreQueuedNotLost: two steers were answered OK;
// at the step boundary the disk is full, so the first one's turn.steered
// cannot be stored and the turn fails. The first steer used to stay in
// the history unseen by any client (and be stored with the turn's end)
// and the second was dropped. Both now go back to the turn's waiting
// steers, which its end puts at the front of the queue.
func TestSteersAFullDiskRefusedAreQueuedNotLost(t *testing.T) {
	mnt, st := smallDiskStore(t)
	s, rec := sessionOnDisk(t, st)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tr := &turn{id: "t1", ctx: ctx, cancel: cancel}
	s.active = tr
	for _, p := range []string{"first steer", "second steer"} {
		if err := s.Steer("t1", p, "1"); err != nil {
			t.Fatal(err)
		}
	}
	smalldisk.Fill(t, mnt)
	for i := 0; i < 1000 && s.Rename(fmt.Sprintf("title %d", i)) == nil; i++ {
	} // the log's last page is full now
	seen := lastSeq(rec)
	if err := s.applySteers(tr); CodeOf(err) != CodeStoreFailed {
		t.Fatalf("steers applied on a full disk: %v, want %s", err, CodeStoreFailed)
	}
	if len(s.history) != 0 || len(s.disk.pending) != 0 || lastSeq(rec) != seen {
		t.Fatalf("a refused steer left %d messages in the history (%d pending), seq %d after %d", len(s.history), len(s.disk.pending), lastSeq(rec), seen)
	}
	s.mu.Lock()
	s.requeueSteersLocked(tr)
	s.mu.Unlock()
	if got := queueOrder(s); got != "first steer,second steer" {
		t.Fatalf("after the turn's end the queue is %q, want both steers", got)
	}
}
