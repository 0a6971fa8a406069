package mcp

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"scv/runtime/config"
)

// BenchmarkCallOverhead measures, in one run, an echo call round trip
// through scv's adapter (tools.Tool.Run → Manager.Call) and the same call
// made directly with the SDK client to a second process of the same
// server, alternating the two. It reports both p50s and their difference.
func BenchmarkCallOverhead(b *testing.B) {
	cfg, _ := helperServer(b, "basic")
	m := Start(Options{Servers: map[string]config.MCPServer{"basic": cfg}, Dir: b.TempDir()})
	defer m.Close()
	ctx := context.Background()
	if err := m.Settle(ctx); err != nil {
		b.Fatal(err)
	}
	var adapterTool = func() func(json.RawMessage) bool {
		for _, t := range m.AsTools() {
			if t.Name() == "mcp__basic__echo" {
				return func(args json.RawMessage) bool { return t.Run(ctx, args).Success }
			}
		}
		b.Fatal("no echo tool")
		return nil
	}()

	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Env = append(os.Environ(), helperModeEnv+"=basic")
	client := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()

	args := json.RawMessage(`{"text":"ping"}`)
	direct := make([]time.Duration, 0, b.N)
	viaSCV := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: args}); err != nil {
			b.Fatal(err)
		}
		direct = append(direct, time.Since(start))
		start = time.Now()
		if !adapterTool(args) {
			b.Fatal("call failed")
		}
		viaSCV = append(viaSCV, time.Since(start))
	}
	b.StopTimer()
	p50 := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Nanoseconds())
	}
	pd, ps := p50(direct), p50(viaSCV)
	b.ReportMetric(pd, "direct-p50-ns")
	b.ReportMetric(ps, "scv-p50-ns")
	b.ReportMetric(ps-pd, "overhead-p50-ns")
	b.ReportMetric(ps/pd, "ratio")
}
