package session

import (
	"bytes"
	"log/slog"
	"sync"
	"testing"
	"time"

	"scv/runtime/store"
)

// lockedBuffer is a log sink the reservation's goroutine may write to.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestCloseRightAfterAReservationLogsNoError: a session closed while the
// background sync of a seq reservation has not run yet used to log "a seq
// reservation could not be synced: session log is closed" at every
// shutdown, although Close had synced it. Closing waits for that sync
// first, so nothing is logged and the reservation is on disk.
func TestCloseRightAfterAReservationLogsNoError(t *testing.T) {
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		out := &lockedBuffer{}
		s := &Session{id: "s" + string(rune('a'+i)), log: slog.New(slog.NewTextHandler(out, nil))}
		l, err := st.Create(store.Header{ID: s.id, Cwd: "/w", CreatedAt: time.Unix(0, 0)})
		if err != nil {
			t.Fatal(err)
		}
		s.disk = disk{store: st, log: l}
		s.mu.Lock()
		s.reserveAheadLocked(1)
		s.closeDiskLocked()
		s.mu.Unlock()
		if got := out.String(); got != "" {
			t.Fatalf("close after a reservation logged: %s", got)
		}
		loaded, err := st.Read(s.id)
		if err != nil {
			t.Fatal(err)
		}
		if len(loaded.Records) != 1 || loaded.Records[0].Type != recordSeqReserve {
			t.Fatalf("the reservation is not on disk: %+v", loaded.Records)
		}
	}
}
