package bytebudget

import (
	"sync"
	"testing"
)

// TryTake never lets the budget pass its limit however many holders race
// for it; Take does, and Peak saw every moment of both.
func TestTryTakeHoldsTheLimitUnderRacingHolders(t *testing.T) {
	b := New(100)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				if b.TryTake(7) {
					b.Give(7)
				}
			}
		}()
	}
	wg.Wait()
	if b.Used() != 0 || b.Peak() > 100 {
		t.Fatalf("used %d, peak %d after racing TryTake/Give under a limit of 100", b.Used(), b.Peak())
	}
	if !b.TryTake(100) || b.TryTake(1) || !b.Spent() {
		t.Fatalf("a full budget: used %d, spent %v", b.Used(), b.Spent())
	}
	b.Take(50)
	if b.Used() != 150 || b.Peak() != 150 {
		t.Fatalf("Take past the limit: used %d, peak %d, want 150 and 150", b.Used(), b.Peak())
	}
	b.Give(150)
	if b.Used() != 0 || b.Spent() {
		t.Fatalf("all given back: used %d, spent %v", b.Used(), b.Spent())
	}
}
