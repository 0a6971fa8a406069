package bridge

import (
	"errors"
	"io"
	"sync"

	"scv/internal/outbudget"
	"scv/lsp/wire"
)

// errQueueClosed: forwarding is ending; the frame was not queued.
var errQueueClosed = errors.New("forwarding ended")

// editorQueue carries frames to the editor through one writer goroutine. It
// is bounded in bytes by its outbudget.Account (its own budget and the
// process's) with backpressure: a producer waits while the account is
// full; nothing is dropped, because replies must arrive. Whatever gathered
// while the previous write was under way goes out in a single write.
type editorQueue struct {
	mu      sync.Mutex
	cond    *sync.Cond
	pending []byte             // framed bytes not yet handed to the writer
	spare   []byte             // the last written buffer, reused
	acct    *outbudget.Account // pending and the buffer being written
	closed  bool
	err     error // set once a write failed
}

func newEditorQueue(acct *outbudget.Account) *editorQueue {
	q := &editorQueue{acct: acct}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// put frames body and queues it, waiting while the account is full.
// It fails once the writer failed (*editorWriteError) or the queue closed.
func (q *editorQueue) put(body []byte) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.acct.Full() && q.err == nil && !q.closed {
		q.cond.Wait()
	}
	switch {
	case q.err != nil:
		return q.err
	case q.closed:
		return errQueueClosed
	}
	before := len(q.pending)
	q.pending = wire.AppendFrame(q.pending, body)
	q.acct.Charge(len(q.pending) - before)
	q.cond.Broadcast()
	return nil
}

// close stops admitting frames; run writes what is queued and returns.
func (q *editorQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.cond.Broadcast()
	q.mu.Unlock()
}

// run writes queued frames to w until the queue is closed and empty (nil)
// or a write fails (*editorWriteError).
func (q *editorQueue) run(w io.Writer) error {
	for {
		q.mu.Lock()
		for len(q.pending) == 0 && !q.closed {
			q.cond.Wait()
		}
		if len(q.pending) == 0 {
			q.mu.Unlock()
			return nil
		}
		buf := q.pending
		q.pending = q.spare[:0]
		q.mu.Unlock()

		_, err := w.Write(buf)

		q.mu.Lock()
		q.acct.Release(len(buf))
		// A buffer grown by a huge frame is not kept around.
		if cap(buf) <= 2*q.acct.Limit() {
			q.spare = buf[:0]
		} else {
			q.spare = nil
		}
		if err != nil {
			q.err = &editorWriteError{err}
			// Nothing more is written: what is pending goes back to the
			// process budget.
			q.pending = nil
			q.acct.ReleaseAll()
		}
		q.cond.Broadcast()
		q.mu.Unlock()
		if err != nil {
			return q.err
		}
	}
}
