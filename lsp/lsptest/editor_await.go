package lsptest

import (
	"fmt"
	"strings"
	"time"
)

// Notes returns the notifications received so far that have method ("" for
// any) and satisfy pred (nil for all), in arrival order.
func (e *Editor) Notes(method string, pred func(Note) bool) []Note {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []Note
	for _, n := range e.notes {
		if (method == "" || n.Method == method) && (pred == nil || pred(n)) {
			out = append(out, n)
		}
	}
	return out
}

// Await waits until cond holds for the notifications received so far, at
// most timeout (the Env's timeout when 0), and fails the test otherwise.
// cond is re-evaluated whenever a notification arrives, never on a clock.
func (e *Editor) Await(what string, cond func(notes []Note) bool, timeout time.Duration) {
	e.T.Helper()
	if timeout <= 0 {
		timeout = e.Env.Timeout
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		e.mu.Lock()
		ok := cond(e.notes)
		changed := e.changed
		e.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-changed:
		case <-e.c.Done():
			// Nothing more can arrive; one last look at what did.
			e.mu.Lock()
			ok := cond(e.notes)
			e.mu.Unlock()
			if ok {
				return
			}
			e.T.Fatalf("connection closed (%v) while waiting for %s\n%s", e.c.Err(), what, e.dump())
		case <-timer.C:
			e.T.Fatalf("%s did not arrive within %s\n%s", what, timeout, e.dump())
		}
	}
}

// AwaitNotification waits for a notification with method that satisfies
// pred (nil: any), looking at everything received so far first, and
// returns the first match.
func (e *Editor) AwaitNotification(method string, pred func(Note) bool, timeout time.Duration) Note {
	e.T.Helper()
	var found Note
	e.Await(method, func(notes []Note) bool {
		for _, n := range notes {
			if n.Method == method && (pred == nil || pred(n)) {
				found = n
				return true
			}
		}
		return false
	}, timeout)
	return found
}

// AwaitTerminal waits for the event that ends a turn and returns it.
func (e *Editor) AwaitTerminal(turnID string) Note {
	e.T.Helper()
	var found Note
	e.Await("the terminal event of turn "+turnID, func(notes []Note) bool {
		for _, n := range notes {
			if n.TurnID == turnID && IsTerminal(n.Method) {
				found = n
				return true
			}
		}
		return false
	}, 0)
	return found
}

// ExpectTerminal waits for a turn's terminal event and fails the test
// unless it is method; it returns the event.
func (e *Editor) ExpectTerminal(turnID, method string) Note {
	e.T.Helper()
	n := e.AwaitTerminal(turnID)
	if n.Method != method {
		e.T.Fatalf("turn %s ended with %s, want %s\n%s", turnID, n, method, e.dump())
	}
	return n
}

// Frames returns how many frames have arrived so far: a mark to look for
// responses after.
func (e *Editor) Frames() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.frames
}

// Responses returns the responses received at or after frame mark.
func (e *Editor) Responses(mark int) []Response {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []Response
	for _, r := range e.responses {
		if r.Index >= mark {
			out = append(out, r)
		}
	}
	return out
}

// AwaitResponse waits for the first response at or after frame mark whose
// id is the JSON value id ("null" for errors that could not name a request).
func (e *Editor) AwaitResponse(mark int, id string) Response {
	e.T.Helper()
	var found Response
	e.Await("a response with id "+id, func([]Note) bool {
		for _, r := range e.responses {
			if r.Index >= mark && r.IDIs(id) {
				found = r
				return true
			}
		}
		return false
	}, 0)
	return found
}

// AwaitClosed waits for the server to close the connection.
func (e *Editor) AwaitClosed(timeout time.Duration) {
	e.T.Helper()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-e.c.Done():
	case <-timer.C:
		e.T.Fatalf("the server did not close the connection within %s", timeout)
	}
}

// dump lists the notifications received so far, for failure messages.
func (e *Editor) dump() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	const max = 60
	var b strings.Builder
	start := 0
	if len(e.notes) > max {
		start = len(e.notes) - max
		fmt.Fprintf(&b, "(%d earlier notifications omitted)\n", start)
	}
	for _, n := range e.notes[start:] {
		b.WriteString("  ")
		b.WriteString(n.String())
		b.WriteByte('\n')
	}
	if len(e.notes) == 0 {
		b.WriteString("  (no notifications received)\n")
	}
	return "received:\n" + b.String()
}
