package mcp

import (
	"context"
	"runtime"
	"runtime/metrics"
	"strconv"
	"testing"
	"time"

	"scv/runtime/config"
)

// heapPeak samples the live heap until stop is called and returns the
// highest value seen, in bytes. It measures; no test passes or fails on it.
func heapPeak() (stop func() uint64) {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	done, result := make(chan struct{}), make(chan uint64)
	go func() {
		var peak uint64
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				result <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 { close(done); return <-result }
}

// measureServer starts one raw server, waits until ready reports it done,
// and reports the peak live heap, the heap still held after a GC, and the
// tool lists the server was asked for.
func measureServer(b *testing.B, script rawScript, ready func(*Manager) bool) {
	for range b.N {
		before := heapPeak()
		base := before()
		stop := heapPeak()
		m := Start(Options{Servers: map[string]config.MCPServer{"raw": rawServer(b, script)}, Dir: b.TempDir()})
		ctx, cancel := context.WithTimeout(context.Background(), testWait)
		if err := m.Settle(ctx); err != nil {
			b.Fatal(err)
		}
		waitServer(b, m, "raw", func(*server) bool { return ready(m) })
		peak := stop()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		res, err := m.Call(ctx, "mcp__raw__lists", nil)
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		lists, _ := strconv.Atoi(res.Text)
		b.ReportMetric(float64(peak-min(peak, base))/(1<<20), "peak-heap-MiB")
		b.ReportMetric(float64(ms.HeapAlloc-min(ms.HeapAlloc, base))/(1<<20), "held-heap-MiB")
		b.ReportMetric(float64(lists), "tool-lists")
		m.Close()
	}
}

// BenchmarkListChangedFlood: 10k list_changed notifications at once.
func BenchmarkListChangedFlood(b *testing.B) {
	measureServer(b, rawScript{Flood: 10000}, func(m *Manager) bool { return offers(m, "mcp__raw__after_flood") })
}

// BenchmarkPaginatedSchemas: 10 pages of one 4 MB schema each.
func BenchmarkPaginatedSchemas(b *testing.B) {
	measureServer(b, rawScript{Pages: 10, SchemaBytes: 4 << 20}, func(*Manager) bool { return true })
}
