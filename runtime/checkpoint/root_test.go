package checkpoint

import (
	"os"
	"path/filepath"
	"testing"

	"scv/internal/fifotest"
)

// The checkpoints' size files may be inside a workspace (scv run in ~),
// where a command can put a named pipe in their place: accounting reads
// none of them, for this session or another, so nothing waits on one.
func TestAccountingNeverOpensANamedPipe(t *testing.T) {
	f := newFixture(t)
	other := filepath.Join(f.root.dir, "s2")
	if err := os.MkdirAll(other, 0o700); err != nil {
		t.Fatal(err)
	}
	pipes := []*fifotest.FIFO{
		fifotest.Make(t, filepath.Join(other, sizeFile)),
		fifotest.Make(t, filepath.Join(f.repo.dir, sizeFile)),
	}
	if _, err := f.root.Account(f.repo, 10); err != nil {
		t.Logf("account: %v", err) // an error is fine; waiting on the pipe is not
	}
	for _, p := range pipes {
		if p.Opened() {
			t.Fatal("accounting opened a named pipe in a size file's place")
		}
	}
}
