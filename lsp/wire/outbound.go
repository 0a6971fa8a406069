package wire

import (
	"context"
	"io"
	"sync"

	"scv/internal/outbudget"
)

// Outbound is a connection's send queue, bounded in bytes by its
// outbudget.Account (the connection's budget and the process's). One
// goroutine (Run) writes queued frames in order. Events are dropped when a
// budget is spent, so a client that stops reading never stalls whoever
// produces them; replies are always admitted, and the connection waits
// (WaitRoom) before taking on the work that produces more.
type Outbound struct {
	mu     sync.Mutex
	cond   *sync.Cond
	frames [][]byte
	acct   *outbudget.Account // guarded by mu
	closed bool
	// settled: Run has ended and given every byte back; a held frame
	// arriving later has nothing left to return.
	settled bool

	onDrained func()
}

// NewOutbound returns a queue charging acct for every frame it holds.
func NewOutbound(acct *outbudget.Account) *Outbound {
	o := &Outbound{acct: acct}
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
	o.acct.Charge(len(frame))
	o.appendLocked(frame)
	return true
}

// Offer queues an event frame if it fits in the budgets.
func (o *Outbound) Offer(frame []byte) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed || !o.acct.Admit(len(frame)) {
		return false
	}
	o.appendLocked(frame)
	return true
}

// Reserve charges n bytes for a frame the connection holds back before
// queuing it (PushReserved), if they fit in the budgets: a held frame is
// memory the connection owes its client as much as a queued one.
func (o *Outbound) Reserve(n int) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return !o.closed && o.acct.Admit(n)
}

// ReserveOwed charges n bytes for a held frame that must not be dropped
// (a replay the client asked for), whatever the budgets hold.
func (o *Outbound) ReserveOwed(n int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.settled {
		o.acct.Charge(n)
	}
}

// Unreserve returns what Reserve charged for a frame that will not be
// queued after all.
func (o *Outbound) Unreserve(n int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.settled {
		o.acct.Release(n)
	}
}

// PushReserved queues a frame whose bytes Reserve charged.
func (o *Outbound) PushReserved(frame []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		// Never queued now; once Run has settled it gave the bytes back.
		if !o.settled {
			o.acct.Release(len(frame))
		}
		return
	}
	o.appendLocked(frame)
}

func (o *Outbound) appendLocked(frame []byte) {
	o.frames = append(o.frames, frame)
	o.cond.Broadcast()
}

// WaitRoom waits while the budgets are full (outbudget.Account.Full), or
// until the queue is closed or ctx ends. A connection calls it before
// reading the next request, and before running a handler whose result
// may be large, so a client that sends requests without reading the
// replies is slowed down instead of piling replies up without bound.
func (o *Outbound) WaitRoom(ctx context.Context) {
	outbudget.WaitRoom(ctx, &o.mu, o.cond, func() bool { return o.acct.Full() && !o.closed })
}

// OnDrained makes Run call f, without the queue's lock, each time it has
// written everything queued: the moment a client that fell behind can be
// told so. Call it before Run.
func (o *Outbound) OnDrained(f func()) { o.onDrained = f }

// Queued returns the number of bytes waiting to be written.
func (o *Outbound) Queued() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.acct.Queued()
}

// Full reports whether WaitRoom would wait now.
func (o *Outbound) Full() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.acct.Full()
}

// Close stops admitting frames; Run writes what was already queued, then returns.
func (o *Outbound) Close() {
	o.mu.Lock()
	o.closed = true
	o.cond.Broadcast()
	o.mu.Unlock()
}

// abandon closes the queue after a failed write: what it holds will never
// be written, so its bytes go back to the process budget.
func (o *Outbound) abandon() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	clear(o.frames)
	o.frames = nil
	o.settleLocked()
	o.cond.Broadcast()
}

func (o *Outbound) settleLocked() {
	o.acct.ReleaseAll()
	o.settled = true
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
			o.settleLocked() // frames held back and never queued
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
		o.acct.Release(written)
		drained := len(o.frames) == 0
		o.cond.Broadcast() // a reader waiting in WaitRoom
		o.mu.Unlock()
		clear(batch)
		if err != nil {
			o.abandon()
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
