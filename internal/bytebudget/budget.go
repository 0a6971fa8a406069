// Package bytebudget is a count of bytes many holders share under one
// limit: what a process may hold at once of something every connection or
// every session adds to (frames queued for clients, MCP tool catalogs).
// A holder takes bytes before it keeps them, only if they fit (TryTake)
// or whatever the budget holds (Take), and gives them back when it lets
// them go. It is one type so that the lock-free take-if-it-fits and the
// peak a test asserts on are written once.
package bytebudget

import "sync/atomic"

// Budget is a byte budget. It is safe for concurrent use.
type Budget struct {
	limit int64
	used  atomic.Int64
	peak  atomic.Int64
}

// New returns a budget of limit bytes.
func New(limit int) *Budget { return &Budget{limit: int64(limit)} }

// Limit returns the budget's size in bytes.
func (b *Budget) Limit() int { return int(b.limit) }

// Used returns the bytes taken now.
func (b *Budget) Used() int { return int(b.used.Load()) }

// Peak returns the most bytes ever taken at once: what a test asserts a
// bound on, since it cannot miss a moment.
func (b *Budget) Peak() int { return int(b.peak.Load()) }

// TryTake takes n bytes if they fit and reports whether they did.
func (b *Budget) TryTake(n int) bool {
	for {
		u := b.used.Load()
		if u+int64(n) > b.limit {
			return false
		}
		if b.used.CompareAndSwap(u, u+int64(n)) {
			b.notePeak(u + int64(n))
			return true
		}
	}
}

// Take takes n bytes whether or not they fit.
func (b *Budget) Take(n int) { b.notePeak(b.used.Add(int64(n))) }

// Give returns n bytes taken before.
func (b *Budget) Give(n int) { b.used.Add(-int64(n)) }

// Spent reports whether nothing is left.
func (b *Budget) Spent() bool { return b.used.Load() >= b.limit }

func (b *Budget) notePeak(u int64) {
	for {
		old := b.peak.Load()
		if u <= old || b.peak.CompareAndSwap(old, u) {
			return
		}
	}
}
