package wire

import (
	"io"
	"sync"
)

// Outbound is a connection's send queue, bounded in bytes. One goroutine
// (Run) writes queued frames in order. Events are dropped when the budget is
// spent, so a client that stops reading never stalls whoever produces them;
// replies are always admitted because their number is bounded by the
// in-flight request limit.
type Outbound struct {
	mu     sync.Mutex
	cond   *sync.Cond
	frames [][]byte
	queued int
	budget int
	closed bool

	onDrained func()
}

// NewOutbound returns a queue that holds at most budget bytes of events.
func NewOutbound(budget int) *Outbound {
	o := &Outbound{budget: budget}
	o.cond = sync.NewCond(&o.mu)
	return o
}

// Push queues a reply or other frame that must not be dropped. It reports
// false once the queue is closed.
func (o *Outbound) Push(frame []byte) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return false
	}
	o.frames = append(o.frames, frame)
	o.queued += len(frame)
	o.cond.Broadcast()
	return true
}

// Offer queues an event frame if it fits in the byte budget.
func (o *Outbound) Offer(frame []byte) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed || o.queued+len(frame) > o.budget {
		return false
	}
	o.frames = append(o.frames, frame)
	o.queued += len(frame)
	o.cond.Broadcast()
	return true
}

// WaitBelow waits until fewer than limit bytes are queued or the queue is
// closed. A connection calls it before reading the next request, so a
// client that sends requests without reading the replies is slowed down
// instead of piling replies up without bound.
func (o *Outbound) WaitBelow(limit int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for o.queued >= limit && !o.closed {
		o.cond.Wait()
	}
}

// OnDrained makes Run call f, without the queue's lock, each time it has
// written everything queued: the moment a client that fell behind can be
// told so. Call it before Run.
func (o *Outbound) OnDrained(f func()) { o.onDrained = f }

// Queued returns the number of bytes waiting to be written.
func (o *Outbound) Queued() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.queued
}

// Close stops admitting frames; Run writes what was already queued, then returns.
func (o *Outbound) Close() {
	o.mu.Lock()
	o.closed = true
	o.cond.Broadcast()
	o.mu.Unlock()
}

// writeChunk is how many bytes of queued frames Run gathers into one write:
// one system call per batch instead of one per frame.
const writeChunk = 64 * 1024

// Run writes frames to w until the queue is closed and empty or a write
// fails. It returns nil after a Close once everything queued was written.
func (o *Outbound) Run(w io.Writer) error {
	var batch [][]byte
	buf := make([]byte, 0, writeChunk)
	for {
		o.mu.Lock()
		for len(o.frames) == 0 && !o.closed {
			o.cond.Wait()
		}
		if len(o.frames) == 0 {
			o.mu.Unlock()
			return nil
		}
		batch, o.frames = o.frames, batch[:0]
		o.mu.Unlock()

		err := writeBatch(w, batch, buf)
		written := 0
		for _, f := range batch {
			written += len(f)
		}
		o.mu.Lock()
		o.queued -= written
		drained := len(o.frames) == 0
		o.cond.Broadcast() // a reader waiting in WaitBelow
		o.mu.Unlock()
		clear(batch)
		if err != nil {
			o.Close()
			return err
		}
		if drained && o.onDrained != nil {
			o.onDrained()
		}
	}
}

func writeBatch(w io.Writer, batch [][]byte, buf []byte) error {
	for _, f := range batch {
		if len(f) >= writeChunk {
			if len(buf) > 0 {
				if _, err := w.Write(buf); err != nil {
					return err
				}
				buf = buf[:0]
			}
			if _, err := w.Write(f); err != nil {
				return err
			}
			continue
		}
		if len(buf)+len(f) > writeChunk {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
		buf = append(buf, f...)
	}
	if len(buf) > 0 {
		_, err := w.Write(buf)
		return err
	}
	return nil
}
