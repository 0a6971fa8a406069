// Package outbudget accounts for the bytes a process holds for its
// clients and has not yet written to them: every frame a connection has
// queued — events, replies, replayed events — is charged both to the
// connection's own Account and to the Process budget all of the
// process's connections share, so neither one slow client nor many of
// them can grow the process's memory without bound.
//
// What a queue does when a budget is spent is the same for both budgets:
// a frame that may be dropped (an event, reported later as lag) is
// refused by Admit; a frame that must arrive (a reply) is always charged
// by Charge, and Full tells the connection to stop taking the work that
// produces such frames (reading the client's next request) until its
// client has read some of what is queued.
package outbudget

import "scv/internal/bytebudget"

// Process is the byte budget shared by every connection of a process. It
// is safe for concurrent use.
type Process struct{ b *bytebudget.Budget }

// NewProcess returns a budget of limit bytes.
func NewProcess(limit int) *Process { return &Process{bytebudget.New(limit)} }

// Limit returns the budget's size in bytes.
func (p *Process) Limit() int { return p.b.Limit() }

// Used returns the bytes charged now.
func (p *Process) Used() int { return p.b.Used() }

// Peak returns the most bytes ever charged at once: what a test asserts
// a bound on, since it cannot miss a moment.
func (p *Process) Peak() int { return p.b.Peak() }

// Account is one connection's share of a Process budget, with a limit of
// its own. It is not safe for concurrent use: the queue that owns it
// guards it with its lock.
type Account struct {
	proc   *Process
	limit  int
	queued int
}

// NewAccount returns an account of limit bytes charged to proc; a nil
// proc gives the account a process budget of its own, of the same size.
func NewAccount(proc *Process, limit int) *Account {
	if proc == nil {
		proc = NewProcess(limit)
	}
	return &Account{proc: proc, limit: limit}
}

// Admit charges n bytes if they fit in both budgets and reports whether
// they did: the test for a frame that may be dropped.
func (a *Account) Admit(n int) bool {
	if a.queued+n > a.limit || !a.proc.b.TryTake(n) {
		return false
	}
	a.queued += n
	return true
}

// Charge charges n bytes whatever the budgets hold: a frame that must
// arrive. A connection keeps the overshoot to one such frame by waiting
// while Full before it takes on more.
func (a *Account) Charge(n int) {
	a.proc.b.Take(n)
	a.queued += n
}

// Release returns n bytes: written, or dropped without being written.
func (a *Account) Release(n int) {
	a.queued -= n
	a.proc.b.Give(n)
}

// ReleaseAll returns everything still charged, when the queue is
// abandoned (its client gone) with frames in it.
func (a *Account) ReleaseAll() { a.Release(a.queued) }

// Full reports whether the connection should stop producing frames that
// must arrive: its own budget is spent, or the process's is and this
// connection holds part of it. A connection with nothing queued is let
// through even then, so clients that read are not stalled by one that
// does not; each adds at most one frame to the overshoot.
func (a *Account) Full() bool {
	return a.queued >= a.limit || (a.queued > 0 && a.proc.b.Spent())
}

// Queued returns the bytes charged to this account now.
func (a *Account) Queued() int { return a.queued }

// Limit returns the account's own limit.
func (a *Account) Limit() int { return a.limit }
