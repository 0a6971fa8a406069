package outbudget

import "testing"

func TestAdmitRefusesPastEitherBudgetAndChargeNever(t *testing.T) {
	proc := NewProcess(100)
	a, b := NewAccount(proc, 60), NewAccount(proc, 60)
	if !a.Admit(60) {
		t.Fatal("a frame filling its own budget refused")
	}
	if a.Admit(1) {
		t.Fatal("admitted past the connection's budget")
	}
	if !b.Admit(40) || b.Admit(1) {
		t.Fatalf("the process budget of %d was not enforced (used %d)", proc.Limit(), proc.Used())
	}
	b.Charge(30) // a reply
	if proc.Used() != 130 || proc.Peak() != 130 || b.Queued() != 70 {
		t.Fatalf("used %d, peak %d, b holds %d", proc.Used(), proc.Peak(), b.Queued())
	}
	a.ReleaseAll()
	b.Release(70)
	if proc.Used() != 0 || proc.Peak() != 130 {
		t.Fatalf("after release: used %d, peak %d", proc.Used(), proc.Peak())
	}
}

// A connection stops producing replies while its own budget is spent, or
// while the process's is and it holds part of it; one with nothing
// queued goes on, so a reading client is not stalled by another.
func TestFull(t *testing.T) {
	proc := NewProcess(100)
	greedy, idle := NewAccount(proc, 200), NewAccount(proc, 200)
	greedy.Charge(99)
	if greedy.Full() || idle.Full() {
		t.Fatal("full below every budget")
	}
	greedy.Charge(1)
	if !greedy.Full() {
		t.Fatal("a connection holding part of a spent process budget is not full")
	}
	if idle.Full() {
		t.Fatal("a connection with nothing queued is stalled by another")
	}
	own := NewAccount(nil, 10)
	own.Charge(10)
	if !own.Full() {
		t.Fatal("a connection at its own budget is not full")
	}
}
