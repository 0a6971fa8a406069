package store

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Figures the issue sets for the store (run: go test ./runtime/store
// -run '^$' -bench . -benchtime 20x):
//   - List of 10,000 stored sessions under 100 ms (first page, and
//     filtered by cwd);
//   - Load of a 5,000-record session under 50 ms;
//   - what the Store keeps in memory for 10,000 sessions (nothing);
//   - Append with Sync every N records against no Sync.

const (
	fixtureSessions = 10_000
	fixtureCwds     = 50
	bigRecords      = 5_000
)

var (
	fixtureOnce sync.Once
	fixtureDir  string
	fixtureErr  error
	// fixtureRoot is removed by TestMain after the benchmarks.
	fixtureRoot string
)

// turnRecords are the records of one realistic turn: a prompt with its
// context, an answer, a tool call with its approval and result, a final
// answer and the turn's end.
func turnRecords(seq uint64, i int) []Record {
	answer := strings.Repeat("The function reads the config once and caches it. ", 16)
	result := strings.Repeat("ok  \tscv/runtime/store\t1.2s\n", 20)
	return []Record{
		testRecord(seq, "prompt", map[string]any{"text": fmt.Sprintf("fix the flaky test number %d in the store", i),
			"context": []map[string]any{{"kind": "selection", "path": "runtime/store/store.go", "range": []int{10, 40}}}}),
		testRecord(seq+1, "assistant", map[string]any{"text": answer}),
		testRecord(seq+2, "tool/call", map[string]any{"id": "call_1", "name": "shell", "arguments": `{"command":"go test ./runtime/store"}`}),
		testRecord(seq+3, "approval", map[string]any{"id": "call_1", "decision": "approved"}),
		testRecord(seq+4, "tool/result", map[string]any{"id": "call_1", "output": result}),
		testRecord(seq+5, "assistant", map[string]any{"text": answer[:400]}),
		testRecord(seq+6, "turn/end", map[string]any{"turn": i, "status": "completed"}),
	}
}

func fillSession(tb testing.TB, l *Log, records int) {
	tb.Helper()
	for i := 0; int(l.LastSeq()) < records; i++ {
		for _, r := range turnRecords(l.LastSeq()+1, i) {
			if int(r.Seq) > records {
				break
			}
			if err := l.Append(r); err != nil {
				tb.Fatal(err)
			}
		}
	}
}

// bigStore is a store of fixtureSessions sessions of two turns each in
// fixtureCwds directories, plus one of bigRecords records ("big"), built
// once for all benchmarks.
func bigStore(b *testing.B) *Store {
	fixtureOnce.Do(func() {
		fixtureRoot, fixtureErr = os.MkdirTemp("", "scv-store-bench-")
		if fixtureErr != nil {
			return
		}
		fixtureDir = filepath.Join(fixtureRoot, "sessions")
		s, err := Open(fixtureDir)
		if err != nil {
			fixtureErr = err
			return
		}
		s.noFsync = true
		start := time.Now()
		for i := range fixtureSessions {
			l, err := s.Create(testHeader(fmt.Sprintf("session-%05d", i), fmt.Sprintf("/home/dev/project-%02d", i%fixtureCwds)))
			if err != nil {
				fixtureErr = err
				return
			}
			fillSession(b, l, 14)
			if err := l.SetMeta(Meta{Title: "fix the flaky test", Turns: 2}); err != nil {
				fixtureErr = err
				return
			}
			l.Close()
		}
		l, err := s.Create(testHeader("big", "/home/dev/project-00"))
		if err != nil {
			fixtureErr = err
			return
		}
		fillSession(b, l, bigRecords)
		fixtureErr = l.Close()
		b.Logf("built %d sessions in %v", fixtureSessions+1, time.Since(start))
	})
	if fixtureErr != nil {
		b.Fatal(fixtureErr)
	}
	s, err := Open(fixtureDir)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func removeFixtures() {
	if fixtureRoot != "" {
		os.RemoveAll(fixtureRoot)
	}
}

func reportMs(b *testing.B) {
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
}

func BenchmarkList10000(b *testing.B) {
	s := bigStore(b)
	for _, bc := range []struct {
		name string
		opts ListOptions
		rows int
	}{
		{"first-page", ListOptions{}, DefaultListLimit},
		{"max-page", ListOptions{Limit: MaxListLimit}, MaxListLimit},
		{"cwd", ListOptions{Cwd: "/home/dev/project-07"}, DefaultListLimit},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				page, err := s.List(bc.opts)
				if err != nil || len(page.Sessions) != bc.rows || len(page.Problems) != 0 {
					b.Fatalf("%d rows, problems %v, %v", len(page.Sessions), page.Problems, err)
				}
			}
			reportMs(b)
		})
	}
}

// BenchmarkStoreMemory reports the heap a Store retains after listing
// 10,000 sessions: it caches nothing, so this is the size of the Store.
func BenchmarkStoreMemory(b *testing.B) {
	bigStore(b)
	var retained uint64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s, err := Open(fixtureDir)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.List(ListOptions{}); err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(s)
		if after.HeapAlloc > before.HeapAlloc {
			retained = max(retained, after.HeapAlloc-before.HeapAlloc)
		}
	}
	b.ReportMetric(float64(retained), "retained-B")
}

func BenchmarkLoad5000(b *testing.B) {
	for _, bc := range []struct {
		name  string
		store func(b *testing.B) *Store
	}{
		{"alone", func(b *testing.B) *Store {
			s := newStore(b)
			l, err := s.Create(testHeader("big", "/p"))
			if err != nil {
				b.Fatal(err)
			}
			fillSession(b, l, bigRecords)
			l.Close()
			return s
		}},
		{"among-10000", bigStore},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := bc.store(b)
			fi, err := os.Stat(logPath(s, "big"))
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(fi.Size())
			b.ReportAllocs()
			for b.Loop() {
				l, got, err := s.Load("big")
				if err != nil || len(got.Records) != bigRecords {
					b.Fatalf("%d records, %v", len(got.Records), err)
				}
				l.Close()
			}
			reportMs(b)
		})
	}
}

// BenchmarkAppend reports ns per appended record (about 300 bytes) with a
// Sync every N records, and with no Sync but the final Close.
func BenchmarkAppend(b *testing.B) {
	rec := testRecord(1, "assistant", map[string]any{"text": strings.Repeat("streamed answer text ", 12)})
	for _, every := range []int{0, 1, 16, 256} {
		name := "no-sync"
		if every > 0 {
			name = fmt.Sprintf("sync-every-%d", every)
		}
		b.Run(name, func(b *testing.B) {
			s := newStore(b)
			l, err := s.Create(testHeader("s", "/p"))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				n++
				rec.Seq = uint64(n)
				if err := l.Append(rec); err != nil {
					b.Fatal(err)
				}
				if every > 0 && n%every == 0 {
					if err := l.Sync(); err != nil {
						b.Fatal(err)
					}
				}
			}
			if err := l.Close(); err != nil {
				b.Fatal(err)
			}
		})
	}
}
