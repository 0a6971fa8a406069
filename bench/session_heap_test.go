package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"scv/lsp"
	"scv/lsp/client"
	"scv/runtime/store"
)

const (
	// heapSessions sessions each run heapTurns turns of an answer of
	// heapAnswerBytes in heapAnswerDeltas deltas.
	heapSessions     = 10
	heapTurns        = 3
	heapAnswerDeltas = 1000
	heapAnswerBytes  = 3_900_000
)

// liveHeap is the heap in use after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// BenchmarkSessionHeap measures, in this process, the heap a daemon-mode
// server holds for each session of heapTurns large answers, against the
// session's replayBytes budget, and what is left once every session is
// closed: the heap side of bridge/e2e's BenchmarkDaemonSessionMemory.
func BenchmarkSessionHeap(b *testing.B) {
	chunk := strings.Repeat("y", heapAnswerBytes/heapAnswerDeltas)
	home := replayHome(b, fmt.Sprintf(`{"text":%q,"repeat":%d}`+"\n", chunk, heapAnswerDeltas))
	st, err := store.Open(filepath.Join(home, "sessions"))
	if err != nil {
		b.Fatal(err)
	}
	srv := lsp.NewServer(lsp.Options{Mode: lsp.ModeDaemon, Home: home, Store: st, Getenv: func(string) string { return "" }})
	toServer, fromClient, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	toClient, fromServer, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		srv.ServeConn(context.Background(), pipeConn{toServer, fromServer, []io.Closer{toServer, fromServer}})
	}()
	ended := make(chan struct{}, 1)
	c := client.New(pipeConn{toClient, fromClient, []io.Closer{toClient, fromClient}}, func(n client.Notification) {
		if n.Method == "scv/turn/completed" {
			ended <- struct{}{}
		}
	})
	defer func() {
		c.Close()
		<-served
		srv.Shutdown()
	}()
	initialize(b, c)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	call := func(method string, params, result any) {
		if err := c.Call(ctx, method, params, result); err != nil {
			b.Fatalf("%s: %v", method, err)
		}
	}
	idle := liveHeap()
	sids := make([]string, heapSessions)
	for i := range sids {
		var snap struct{ SessionID string }
		call("scv/session/start", map[string]any{"cwd": b.TempDir()}, &snap)
		sids[i] = snap.SessionID
		for range heapTurns {
			call("scv/turn/start", map[string]any{"sessionId": sids[i], "prompt": "go"}, nil)
			select {
			case <-ended:
			case <-ctx.Done():
				b.Fatal("a turn did not end")
			}
		}
	}
	loaded := liveHeap()
	for b.Loop() {
		// The measure is the state above; the loop only satisfies the harness.
	}
	b.StopTimer()
	for _, sid := range sids {
		call("scv/session/close", map[string]any{"sessionId": sid}, nil)
	}
	closed := liveHeap()
	mb := func(n uint64) float64 { return float64(n) / (1 << 20) }
	perSession := (float64(loaded) - float64(idle)) / heapSessions
	b.ReportMetric(perSession/(1<<20), "heap-MB/session")
	b.ReportMetric(perSession/float64(32<<20), "session/replayBytes")
	b.ReportMetric(mb(closed-min(closed, idle)), "heap-after-close-MB")
}
