// Package fifotest makes named pipes for tests of code that must never
// open one: a reader's open of a FIFO blocks until a writer comes, so such
// code hangs, and a test waiting for it would fail only at its timeout.
// The pipe made here always has a writer waiting, so a reader's open
// returns at once (and reads end of file) and the test sees that it
// happened.
package fifotest

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
)

// FIFO is a named pipe watched for readers.
type FIFO struct {
	link     string // a second name of the pipe, outside the code's reach
	opened   chan struct{}
	done     chan struct{}
	stopping atomic.Bool
}

// Make creates a named pipe at path. The watch ends when the test does.
func Make(t testing.TB, path string) *FIFO {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatalf("mkfifo %s: %v", path, err)
	}
	// A hard link keeps the pipe reachable when the code under test
	// replaces or removes path, so the waiting writer can always be
	// released.
	f := &FIFO{link: filepath.Join(t.TempDir(), "fifo"), opened: make(chan struct{}), done: make(chan struct{})}
	if err := os.Link(path, f.link); err != nil {
		t.Fatalf("link %s: %v", path, err)
	}
	go func() {
		defer close(f.done)
		for !f.stopping.Load() {
			w, err := os.OpenFile(f.link, os.O_WRONLY, 0) // returns once a reader opens the pipe
			if err != nil {
				return
			}
			if !f.stopping.Load() && !f.Opened() {
				close(f.opened) // before the close below lets that reader go on
			}
			w.Close()
		}
	}()
	t.Cleanup(f.stop)
	return f
}

// Opened reports whether anything opened the pipe for reading.
func (f *FIFO) Opened() bool {
	select {
	case <-f.opened:
		return true
	default:
		return false
	}
}

// stop releases the waiting writer and waits for it.
func (f *FIFO) stop() {
	f.stopping.Store(true)
	r, err := os.OpenFile(f.link, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	<-f.done
	if err == nil {
		r.Close()
	}
}
