package bridge

import (
	"errors"
	"io"
	"strconv"
	"testing"

	"scv/internal/outbudget"
	"scv/lsp/wire"
)

func TestEditorQueueKeepsOrderUnderBackpressure(t *testing.T) {
	q := newEditorQueue(outbudget.NewAccount(nil, 64)) // a few frames at most
	r, w := io.Pipe()
	writerDone := make(chan error, 1)
	go func() { writerDone <- q.run(w); w.Close() }()
	const n = 2000
	putDone := make(chan error, 1)
	go func() {
		for i := range n {
			if err := q.put([]byte(strconv.Itoa(i))); err != nil {
				putDone <- err
				return
			}
		}
		q.close()
		putDone <- nil
	}()
	fr := wire.NewReader(r, 1<<10)
	for i := range n {
		body, err := fr.ReadFrame()
		if err != nil || string(body) != strconv.Itoa(i) {
			t.Fatalf("frame %d = %q, %v", i, body, err)
		}
	}
	if _, err := fr.ReadFrame(); err != io.EOF {
		t.Fatalf("after the last frame: %v", err)
	}
	if err := <-putDone; err != nil {
		t.Fatal(err)
	}
	if err := <-writerDone; err != nil {
		t.Fatal(err)
	}
	if err := q.put([]byte("late")); !errors.Is(err, errQueueClosed) {
		t.Fatalf("put after close = %v", err)
	}
}

func TestEditorQueueReportsWriteFailure(t *testing.T) {
	q := newEditorQueue(outbudget.NewAccount(nil, 1<<10))
	r, w := io.Pipe()
	r.Close()
	writerDone := make(chan error, 1)
	go func() { writerDone <- q.run(w) }()
	if err := q.put([]byte("x")); err != nil {
		t.Fatal(err) // queued before the writer noticed
	}
	var werr *editorWriteError
	if err := <-writerDone; !errors.As(err, &werr) {
		t.Fatalf("writer = %v", err)
	}
	if err := q.put([]byte("y")); !errors.As(err, &werr) {
		t.Fatalf("put after a failed write = %v", err)
	}
}

// The queue charges the process budget for what it holds and gives it all
// back once it is written, or once the editor is gone.
func TestEditorQueueChargesTheProcessBudget(t *testing.T) {
	proc := outbudget.NewProcess(1 << 20)
	q := newEditorQueue(outbudget.NewAccount(proc, 1<<10))
	if err := q.put([]byte("0123456789")); err != nil {
		t.Fatal(err)
	}
	if proc.Used() == 0 {
		t.Fatal("a queued frame was not charged to the process budget")
	}
	r, w := io.Pipe()
	r.Close()
	if err := q.run(w); err == nil {
		t.Fatal("run did not report the failed write")
	}
	if got := proc.Used(); got != 0 {
		t.Fatalf("the process still holds %d bytes for an editor that is gone", got)
	}
}
