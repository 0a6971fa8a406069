package bench

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"scv/lsp"
	"scv/lsp/client"
	"scv/runtime/store"
)

// pipeConn is one end of a connection made of two OS pipes, as stdio is.
type pipeConn struct {
	io.Reader
	io.Writer
	closers []io.Closer
}

func (p pipeConn) Close() error {
	for _, c := range p.closers {
		c.Close()
	}
	return nil
}

// inProcessTurn is runTurn with the server in this process (stored
// sessions on, as `scv lsp` has them), so that -cpuprofile sees the
// server's side of the stream.
func inProcessTurn(tb testing.TB, home string) (int, time.Duration) {
	tb.Helper()
	st, err := store.Open(filepath.Join(home, "sessions"))
	if err != nil {
		tb.Fatal(err)
	}
	srv := lsp.NewServer(lsp.Options{Home: home, Store: st, Getenv: func(string) string { return "" }})
	toServer, fromClient, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	toClient, fromServer, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		srv.ServeConn(context.Background(), pipeConn{toServer, fromServer, []io.Closer{toServer, fromServer}})
	}()
	done := make(chan struct{})
	count := 0
	c := client.New(pipeConn{toClient, fromClient, []io.Closer{toClient, fromClient}}, func(n client.Notification) {
		switch n.Method {
		case "scv/assistant/delta":
			count++
		case "scv/turn/completed", "scv/turn/failed", "scv/turn/cancelled":
			close(done)
		}
	})
	defer func() {
		c.Close()
		<-served
		srv.Shutdown()
	}()
	initialize(tb, c)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var snap struct{ SessionID string }
	if err := c.Call(ctx, "scv/session/start", map[string]any{"cwd": tb.TempDir()}, &snap); err != nil {
		tb.Fatal(err)
	}
	start := time.Now()
	if err := c.Call(ctx, "scv/turn/start", map[string]any{"sessionId": snap.SessionID, "prompt": "go"}, nil); err != nil {
		tb.Fatal(err)
	}
	select {
	case <-done:
	case <-ctx.Done():
		tb.Fatal("turn did not end")
	}
	return count, time.Since(start)
}

// BenchmarkStreamedDeltasInProcess is BenchmarkStreamedDeltas with the
// server in the benchmark's process: run it with -cpuprofile to see where
// the server spends a stream. Its ratio is against the same raw pipe.
func BenchmarkStreamedDeltasInProcess(b *testing.B) {
	var rates, pipeRates []float64
	for b.Loop() {
		home := replayHome(b, `{"text":"tok ","repeat":100000}`+"\n")
		n, elapsed := inProcessTurn(b, home)
		if n != streamDeltas {
			b.Fatalf("received %d deltas, want %d", n, streamDeltas)
		}
		rates = append(rates, float64(n)/elapsed.Seconds())
		pipeRates = append(pipeRates, rawPipeRate(b, streamDeltas))
	}
	rate, pipeRate := median(rates), median(pipeRates)
	b.ReportMetric(rate, "scv-frames/s")
	b.ReportMetric(pipeRate, "pipe-frames/s")
	b.ReportMetric(rate/pipeRate, "ratio")
}
