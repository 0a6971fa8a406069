package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"scv/lsp/schema"
	"scv/runtime/store"
)

// storedSessions is how many sessions BenchmarkStoredDaemonRSS stores: the
// issue's figure is the daemon's RSS with 10,000 stored sessions, none
// loaded, within 5 MB of an empty store.
const storedSessions = 10_000

var (
	storedOnce sync.Once
	storedDir  string
	storedErr  error
)

// storedFixture is a sessions directory of storedSessions sessions, built
// once per test binary beside it (and removed with it): creating syncs
// every file, which takes a while.
func storedFixture(b *testing.B) string {
	storedOnce.Do(func() {
		storedDir = filepath.Join(filepath.Dir(scvBin), "stored-sessions")
		start := time.Now()
		storedErr = fillStore(storedDir, storedSessions)
		b.Logf("stored %d sessions in %v", storedSessions, time.Since(start))
	})
	if storedErr != nil {
		b.Fatal(storedErr)
	}
	return storedDir
}

// fillStore stores n sessions of one turn each in dir, the way a daemon
// stores them (runtime/store directly), spread over 50 workspaces, on a
// few goroutines.
func fillStore(dir string, n int) error {
	st, err := store.Open(dir)
	if err != nil {
		return err
	}
	const workers = 16
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				title := fmt.Sprintf("fix the flaky test number %d in the store", i)
				h := store.Header{ID: fmt.Sprintf("stored-%05d", i), Cwd: fmt.Sprintf("/home/dev/project-%02d", i%50),
					Model: testModel, Provider: "replay", CreatedAt: time.Now(), Title: title}
				data := fmt.Appendf(nil, `{"turnId":"t1","prompt":%q}`, title)
				l, err := st.CreateFrom(h, []store.Record{{Seq: 1, Type: "turn.started", Data: data}})
				if err == nil {
					err = l.SetMeta(store.Meta{Title: title, Turns: 1})
					if cerr := l.Close(); err == nil {
						err = cerr
					}
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// listedDaemon starts a daemon on e's home, lists the first page of its
// sessions once (so the listing code has run and its memory is counted),
// and returns its VmRSS and a connection to it.
func listedDaemon(b *testing.B, e *env, want int) (int64, *benchConn) {
	b.Helper()
	d := e.daemon()
	conn := e.benchDirect(nil)
	var page schema.SessionListResult
	conn.call(schema.MethodSessionList, schema.SessionListParams{}, &page)
	if len(page.Sessions) != want {
		b.Fatalf("the first page lists %d sessions, want %d", len(page.Sessions), want)
	}
	return vmRSS(b, d.cmd.Process.Pid), conn
}

// BenchmarkStoredDaemonRSS: the RSS of a daemon whose store holds 10,000
// sessions (none loaded) against one whose store is empty, both after
// one scv/session/list, in one run (target: within 5 MB). The timed loop
// lists the first page of the 10,000 through the socket (target: under
// 100 ms).
func BenchmarkStoredDaemonRSS(b *testing.B) {
	empty, full := newEnv(b), newEnv(b)
	for _, e := range []*env{empty, full} {
		// Retention must not prune the fixture at the daemon's start.
		e.set("sessions", "max_count", 2*storedSessions)
		e.writeConfig()
	}
	if err := os.Symlink(storedFixture(b), filepath.Join(full.home, "sessions")); err != nil {
		b.Fatal(err)
	}
	emptyRSS, _ := listedDaemon(b, empty, 0)
	fullRSS, conn := listedDaemon(b, full, 50)

	for b.Loop() {
		var page schema.SessionListResult
		conn.call(schema.MethodSessionList, schema.SessionListParams{}, &page)
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "list-ms")
	b.ReportMetric(float64(emptyRSS)/(1<<20), "empty-RSS-MB")
	b.ReportMetric(float64(fullRSS)/(1<<20), "stored-RSS-MB")
	b.ReportMetric(float64(fullRSS-emptyRSS)/(1<<20), "diff-MB")
}
