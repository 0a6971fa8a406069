package wire

import (
	"bytes"
	"errors"
	"testing"

	"scv/internal/outbudget"
)

// Two connections share one process budget: once their queues hold all
// of it, neither admits another event, though each is under its own
// budget; a reply is still admitted and makes the connection full.
func TestOutboundsShareTheProcessBudget(t *testing.T) {
	proc := outbudget.NewProcess(20)
	a := NewOutbound(outbudget.NewAccount(proc, 16))
	b := NewOutbound(outbudget.NewAccount(proc, 16))
	if !a.Offer(make([]byte, 12)) || !b.Offer(make([]byte, 8)) {
		t.Fatal("events within both budgets refused")
	}
	if b.Offer(make([]byte, 1)) {
		t.Fatalf("an event admitted with the process budget spent (%d of %d)", proc.Used(), proc.Limit())
	}
	if !b.Push(make([]byte, 4)) {
		t.Fatal("a reply refused")
	}
	if got := proc.Used(); got != 24 {
		t.Fatalf("process holds %d bytes, want 24", got)
	}
	var out bytes.Buffer
	a.Close()
	if err := a.Run(&out); err != nil {
		t.Fatal(err)
	}
	if got := proc.Used(); got != 12 {
		t.Fatalf("after one queue was written the process holds %d bytes, want 12", got)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("client gone") }

// A queue whose client is gone gives back every byte it held, held
// frames included, so the process budget does not leak.
func TestOutboundGivesItsBytesBackWhenTheWriteFails(t *testing.T) {
	proc := outbudget.NewProcess(1 << 20)
	o := NewOutbound(outbudget.NewAccount(proc, 1<<20))
	o.Push(make([]byte, 100))
	o.Offer(make([]byte, 50))
	if !o.Reserve(30) {
		t.Fatal("reserve refused")
	}
	if err := o.Run(failingWriter{}); err == nil {
		t.Fatal("Run did not report the failed write")
	}
	o.PushReserved(make([]byte, 30)) // the held frame, released after the failure
	if got := proc.Used(); got != 0 {
		t.Fatalf("the process still holds %d bytes of a connection that ended", got)
	}
}
