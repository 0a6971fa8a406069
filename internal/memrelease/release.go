// Package memrelease gives a long-lived process's free memory back to the
// system when asked. Go frees a closed session's heap at its next
// collection but returns the pages to the system only gradually, and an
// idle daemon collects rarely, so without it a daemon that held thirty
// large sessions keeps their size in RSS for minutes after closing them.
package memrelease

import (
	"context"
	"runtime/debug"
)

// Releaser runs a release (debug.FreeOSMemory: a collection, then every
// free page back to the system) on its own goroutine each time it is
// asked, folding the requests that arrive while one runs into one more
// run: closing thirty sessions at once costs two collections, not thirty.
type Releaser struct {
	release func()
	asked   chan struct{}
}

// New returns a Releaser that calls release, or debug.FreeOSMemory when
// release is nil.
func New(release func()) *Releaser {
	if release == nil {
		release = debug.FreeOSMemory
	}
	return &Releaser{release: release, asked: make(chan struct{}, 1)}
}

// Request asks for a release. It never blocks, so it may be called with
// locks held (a session's close).
func (r *Releaser) Request() {
	select {
	case r.asked <- struct{}{}:
	default: // one is pending already; it will see this close too
	}
}

// Run releases memory once per pending request until ctx ends. Its owner
// starts it and waits for it to return.
func (r *Releaser) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.asked:
			r.release()
		}
	}
}
