package tools

import (
	"context"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"
)

// OutputInterval is the shortest time between two chunks of a running
// tool's live output: at most 1/OutputInterval (20) chunks a second per
// call, however fast the command prints, so a flood of output costs the
// editors and the session's other clients a bounded number of events.
const OutputInterval = 50 * time.Millisecond

// MaxOutputChunkBytes bounds one chunk of live output. A command that
// prints more within one OutputInterval has the excess left out of the
// live view, with a note saying how much (the result still holds the
// first tools.max_output_bytes): the live view is for watching, so it
// stays at most 20 chunks of 256 KiB a second however fast the command
// prints, and every chunk fits a frame.
const MaxOutputChunkBytes = 256 << 10

// OutputFunc receives a chunk of a running tool's output: valid UTF-8,
// never empty. It is called from a goroutine of the tool's run, one call
// at a time, and every call returns before the tool's Run does.
type OutputFunc func(chunk string)

type outputKey struct{}

// WithOutput returns ctx carrying fn, which shell calls with its output
// while the command runs. The chunks together are at most the first
// tools.max_output_bytes of the output, the same bytes the result holds.
func WithOutput(ctx context.Context, fn OutputFunc) context.Context {
	if fn == nil {
		return ctx
	}
	return context.WithValue(ctx, outputKey{}, fn)
}

func outputFrom(ctx context.Context) OutputFunc {
	fn, _ := ctx.Value(outputKey{}).(OutputFunc)
	return fn
}

// liveOutput coalesces a command's output into chunks sent at most once
// per OutputInterval. It forwards at most max bytes in all.
type liveOutput struct {
	emit OutputFunc
	stop chan struct{}
	done chan struct{}

	mu      sync.Mutex
	pending []byte
	left    int // bytes that may still be forwarded

	// panicked is what a panic of emit left; Close raises it again in
	// the tool's goroutine, whose owner recovers it (a turn fails), so a
	// fault in a sink never ends the process.
	panicked any
}

// startLiveOutput starts forwarding to the OutputFunc of ctx; it returns
// nil when ctx carries none. Close must be called to stop it.
func startLiveOutput(ctx context.Context, max int) *liveOutput {
	emit := outputFrom(ctx)
	if emit == nil {
		return nil
	}
	l := &liveOutput{emit: emit, left: max, stop: make(chan struct{}), done: make(chan struct{})}
	go l.run()
	return l
}

// Write keeps what fits under the cap for the next chunk; it never fails,
// so the result's own buffer beside it always sees every byte.
func (l *liveOutput) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := min(len(p), l.left)
	l.pending = append(l.pending, p[:n]...)
	l.left -= n
	return len(p), nil
}

func (l *liveOutput) run() {
	defer close(l.done)
	defer func() { l.panicked = recover() }()
	tick := time.NewTicker(OutputInterval)
	defer tick.Stop()
	for {
		select {
		case <-l.stop:
			l.flush(true)
			return
		case <-tick.C:
			l.flush(false)
		}
	}
}

// flush sends what is pending as one chunk. A rune cut by the read is
// held back for the next chunk, unless this is the last one; past
// MaxOutputChunkBytes the rest is left out with a note.
func (l *liveOutput) flush(last bool) {
	l.mu.Lock()
	chunk := l.pending
	skipped := 0
	if len(chunk) > MaxOutputChunkBytes {
		skipped = len(chunk) - MaxOutputChunkBytes
		chunk = chunk[:MaxOutputChunkBytes]
		chunk = chunk[:len(chunk)-partialRuneTail(chunk)]
		l.pending = nil
	} else {
		keep := 0
		if !last {
			keep = partialRuneTail(chunk)
		}
		l.pending = append([]byte(nil), chunk[len(chunk)-keep:]...)
		chunk = chunk[:len(chunk)-keep]
	}
	l.mu.Unlock()
	text := validUTF8(string(chunk))
	if skipped > 0 {
		text += fmt.Sprintf("\n[%d bytes printed meanwhile are not shown live]\n", skipped)
	}
	if text != "" {
		l.emit(text)
	}
}

// Close sends what is left and waits until the last chunk was handed over.
func (l *liveOutput) Close() {
	if l == nil {
		return
	}
	close(l.stop)
	<-l.done
	if l.panicked != nil {
		panic(l.panicked)
	}
}

// partialRuneTail is the length of an incomplete rune at the end of b.
func partialRuneTail(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if utf8.FullRune(b[i:]) {
				return 0
			}
			return len(b) - i
		}
	}
	return 0
}
