package acp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"scv/internal/outbudget"
	"scv/runtime/prompt"
	"scv/runtime/session"
)

// replayBackend answers every attach with a fresh replay of one large
// answer, as a daemon's decoded replay is: each load pins a new copy.
type replayBackend struct {
	Backend
	answer   int
	attached atomic.Int64
	handed   atomic.Int64 // bytes of answer text handed to the door
}

func (b *replayBackend) Attach(context.Context, string, bool) (session.Snapshot, []session.Event, error) {
	b.attached.Add(1)
	b.handed.Add(int64(b.answer))
	ev := session.Event{SessionID: "s", Seq: 1, Payload: session.AssistantCompleted{TurnID: "t", Content: strings.Repeat("a", b.answer)}}
	return session.Snapshot{SessionID: "s", Cwd: "/", Seq: 1}, []session.Event{ev}, nil
}

func (*replayBackend) Skills(context.Context, string) []prompt.Skill { return nil }
func (*replayBackend) Shutdown()                                     {}
func (*replayBackend) Models(context.Context, string) []string       { return nil }
func (*replayBackend) Configure(context.Context, string, string, string) (session.Configuration, error) {
	return session.Configuration{}, nil
}

// stallingWriter is a client's stdin that stops taking output while
// stalled, as a client that does not read does, and counts what it took.
type stallingWriter struct {
	mu      sync.Mutex
	cond    *sync.Cond
	stalled bool
	got     bytes.Buffer
}

func newStallingWriter() *stallingWriter {
	w := &stallingWriter{}
	w.cond = sync.NewCond(&w.mu)
	return w
}

func (w *stallingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.stalled {
		w.cond.Wait()
	}
	w.got.Write(p)
	w.cond.Broadcast()
	return len(p), nil
}

func (w *stallingWriter) stall(on bool) {
	w.mu.Lock()
	w.stalled = on
	w.cond.Broadcast()
	w.mu.Unlock()
}

// waitFor waits until what was written contains s.
func (w *stallingWriter) waitFor(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for !strings.Contains(w.got.String(), s) {
		w.cond.Wait()
	}
}

// A client that pipelines session/load without reading must not make the
// door pin a replay per request: the replays it has not written count
// toward protocol.outbound_queue_bytes and the process budget, and the
// door reads no further request while they exceed them (as scv lsp does).
// Every byte comes back to the process budget when the client leaves.
func TestPipelinedLoadsToAClientThatDoesNotReadStayWithinTheBudget(t *testing.T) {
	const limit = 1 << 20
	const loads = 8
	be := &replayBackend{answer: limit}
	proc := outbudget.NewProcess(4 * limit)
	d := New(Options{Backend: be, MaxQueuedBytes: limit, Outbound: proc})
	in, feed := io.Pipe()
	out := newStallingWriter()
	served := make(chan error, 1)
	go func() { served <- d.Serve(context.Background(), in, out) }()

	send := func(line string) {
		if _, err := io.WriteString(feed, line+"\n"); err != nil {
			t.Errorf("send: %v", err)
		}
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`)
	out.waitFor(`"id":0,`)

	out.stall(true)
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for i := 1; i <= loads; i++ {
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/load","params":{"sessionId":"s","cwd":"/","mcpServers":[]}}`, i))
		}
	}()
	// The door has taken every load it will take while nothing is read:
	// all of them, or as many as filled its budget.
	for be.attached.Load() < loads && !d.budgetFull() {
		runtime.Gosched()
	}
	pinned := be.handed.Load() // nothing has been written since the stall
	if bound := int64(limit + be.answer); pinned > bound {
		t.Errorf("a client that reads nothing made the door hold %d bytes of replay (%d loads taken), past its budget of %d plus one replay",
			pinned, be.attached.Load(), limit)
	}

	out.stall(false)
	out.waitFor(fmt.Sprintf(`"id":%d,`, loads))
	<-sent
	_ = feed.Close()
	if err := <-served; err != nil {
		t.Fatalf("serve: %v", err)
	}
	if got := be.attached.Load(); got != loads {
		t.Fatalf("%d loads served, want %d", got, loads)
	}
	if used := proc.Used(); used != 0 {
		t.Fatalf("the process budget holds %d bytes after the client left", used)
	}
}

// budgetFull reports whether the door's account is spent (test hook).
func (d *Door) budgetFull() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.acct.Full()
}
