package lsp_test

import (
	"slices"
	"testing"
	"time"

	"scv/lsp/lsptest"
	"scv/lsp/schema"
)

// BenchmarkSessionStartWithMCPServers measures scv/session/start in one
// run, alternating a session with no MCP server and one with three (cat:
// a real program that never finishes the handshake), and reports the
// median of each and their difference: the servers start in the
// background, so the difference should stay within 2 ms.
func BenchmarkSessionStartWithMCPServers(b *testing.B) {
	none := lsptest.NewEnv(b, lsptest.InProcess{})
	three := lsptest.NewEnv(b, lsptest.InProcess{})
	for _, name := range []string{"one", "two", "three"} {
		three.Set("mcp_servers", name, map[string]any{"command": "cat"})
	}
	edNone, edThree := none.Connect(), three.Connect()
	edNone.Initialize()
	edThree.Initialize()
	start := func(ed *lsptest.Editor) time.Duration {
		t0 := time.Now()
		sid := ed.StartSession("", nil).SessionID
		d := time.Since(t0)
		ed.MustCall(schema.MethodSessionClose, schema.SessionRef{SessionID: sid}, nil)
		return d
	}
	var withNone, withThree []time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		// Alternate which goes first: each start follows the other's
		// close, whose servers stop in the background.
		if i%2 == 0 {
			withNone = append(withNone, start(edNone))
			withThree = append(withThree, start(edThree))
		} else {
			withThree = append(withThree, start(edThree))
			withNone = append(withNone, start(edNone))
		}
	}
	b.StopTimer()
	p50 := func(ds []time.Duration) time.Duration {
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	n, t := p50(withNone), p50(withThree)
	b.ReportMetric(float64(n.Microseconds()), "µs-p50-none")
	b.ReportMetric(float64(t.Microseconds()), "µs-p50-three")
	b.ReportMetric(float64((t - n).Microseconds()), "µs-p50-diff")
}
