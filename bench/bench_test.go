// Package bench measures the figures the issues set: cold start, resident
// memory after a turn, and streamed-delta throughput against a raw pipe.
// Run: go test ./bench -bench . -benchtime 20x
package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"scv/lsp/client"
	"scv/lsp/wire"
)

var scvBin, minimalBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "scv-bench-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	scvBin = filepath.Join(dir, "scv")
	minimalBin = filepath.Join(dir, "minimal")
	for bin, pkg := range map[string]string{scvBin: "scv/cmd/scv", minimalBin: "scv/bench/testdata/minimal"} {
		if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "build %s: %v\n%s", pkg, err, out)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// proc is a spawned server with a client on its stdio.
type proc struct {
	cmd    *exec.Cmd
	client *client.Client
}

type pipeRWC struct {
	io.Reader
	io.WriteCloser
}

func spawn(tb testing.TB, bin string, home string, onNotify func(client.Notification), args ...string) *proc {
	tb.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "SCV_HOME="+home, "SCV_NO_DAEMON=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	return &proc{cmd: cmd, client: client.New(pipeRWC{stdout, stdin}, onNotify)}
}

func (p *proc) stop() {
	_ = p.client.Close()
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
}

func initialize(tb testing.TB, c *client.Client) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Call(ctx, "initialize", map[string]any{"processId": nil}, nil); err != nil {
		tb.Fatal(err)
	}
}

// coldStart spawns bin and times spawn → initialize reply, n times; it
// reports the median.
func coldStart(b *testing.B, bin string, args ...string) time.Duration {
	home := b.TempDir()
	var times []time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		p := spawn(b, bin, home, nil, args...)
		initialize(b, p.client)
		times = append(times, time.Since(start))
		p.stop()
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	return times[len(times)/2]
}

// BenchmarkColdStart: spawn `scv lsp` → initialize answered, median,
// against a minimal Go program that answers the same frame.
func BenchmarkColdStart(b *testing.B) {
	base := coldStart(b, minimalBin)
	scv := coldStart(b, scvBin, "lsp", "--daemon=never")
	b.ReportMetric(float64(scv.Microseconds())/1000, "scv-ms")
	b.ReportMetric(float64(base.Microseconds())/1000, "baseline-ms")
	b.ReportMetric(float64(scv)/float64(base), "ratio")
}

// replayHome writes a config that selects the replay provider with script.
func replayHome(tb testing.TB, script string) string {
	tb.Helper()
	home := tb.TempDir()
	scriptPath := filepath.Join(home, "script.jsonl")
	if err := os.WriteFile(scriptPath, []byte(script), 0o600); err != nil {
		tb.Fatal(err)
	}
	cfg := fmt.Sprintf("[provider]\nkind = \"replay\"\nreplay_script = %q\n", scriptPath)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		tb.Fatal(err)
	}
	return home
}

// turn runs one prompt and returns the number of deltas received and the
// bytes of the frames that carried them.
func runTurn(tb testing.TB, home string) (deltas int, elapsed time.Duration, pid int) {
	tb.Helper()
	done := make(chan struct{})
	count := 0
	p := spawn(tb, scvBin, home, func(n client.Notification) {
		switch n.Method {
		case "scv/assistant/delta":
			count++
		case "scv/turn/completed", "scv/turn/failed", "scv/turn/cancelled":
			close(done)
		}
	}, "lsp", "--daemon=never")
	defer p.stop()
	initialize(tb, p.client)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var snap struct{ SessionID string }
	if err := p.client.Call(ctx, "scv/session/start", map[string]any{"cwd": tb.TempDir()}, &snap); err != nil {
		tb.Fatal(err)
	}
	start := time.Now()
	if err := p.client.Call(ctx, "scv/turn/start", map[string]any{"sessionId": snap.SessionID, "prompt": "go"}, nil); err != nil {
		tb.Fatal(err)
	}
	select {
	case <-done:
	case <-ctx.Done():
		tb.Fatal("turn did not end")
	}
	return count, time.Since(start), p.cmd.Process.Pid
}

// rssKiB reads a process's resident set from /proc.
func rssKiB(tb testing.TB, pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	return 0
}

// BenchmarkResidentAfterTurn: RSS of `scv lsp` after one demo turn
// (replay provider), against the minimal program's RSS.
func BenchmarkResidentAfterTurn(b *testing.B) {
	home := replayHome(b, string(demoLikeScript()))
	var scv, base int
	for i := 0; i < b.N; i++ {
		done := make(chan struct{})
		p := spawn(b, scvBin, home, func(n client.Notification) {
			if n.Method == "scv/turn/completed" || n.Method == "scv/turn/failed" {
				close(done)
			}
		}, "lsp", "--daemon=never", "--approval=auto")
		initialize(b, p.client)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		var snap struct{ SessionID string }
		if err := p.client.Call(ctx, "scv/session/start", map[string]any{"cwd": b.TempDir()}, &snap); err != nil {
			b.Fatal(err)
		}
		if err := p.client.Call(ctx, "scv/turn/start", map[string]any{"sessionId": snap.SessionID, "prompt": "go"}, nil); err != nil {
			b.Fatal(err)
		}
		<-done
		cancel()
		scv = rssKiB(b, p.cmd.Process.Pid)
		p.stop()

		m := spawn(b, minimalBin, home, nil)
		initialize(b, m.client)
		base = rssKiB(b, m.cmd.Process.Pid)
		m.stop()
	}
	b.ReportMetric(float64(scv)/1024, "scv-MiB")
	b.ReportMetric(float64(base)/1024, "baseline-MiB")
}

func demoLikeScript() []byte {
	return []byte(`{"text":"Reading the file. "}
{"tool_call":{"id":"c1","name":"write_file","arguments":{"path":"a.txt","content":"hello\n"}}}
{"usage":{"input_tokens":10,"output_tokens":5}}
{"stop":true}
{"text":"Done."}
{"usage":{"input_tokens":20,"output_tokens":2}}
`)
}

const streamDeltas = 100000

// BenchmarkStreamedDeltas: 100 000 deltas from the replay provider through
// `scv lsp` to a client, in frames per second, against a raw pipe that
// moves frames of the same size through the same reader.
func BenchmarkStreamedDeltas(b *testing.B) {
	home := replayHome(b, fmt.Sprintf(`{"text":"tok ","repeat":%d}`+"\n", streamDeltas))
	var scvRates, pipeRates []float64
	for i := 0; i < b.N; i++ {
		n, elapsed, _ := runTurn(b, home)
		if n != streamDeltas {
			b.Fatalf("received %d deltas, want %d", n, streamDeltas)
		}
		scvRates = append(scvRates, float64(n)/elapsed.Seconds())
		pipeRates = append(pipeRates, rawPipeRate(b, streamDeltas))
	}
	scvRate, pipeRate := median(scvRates), median(pipeRates)
	b.ReportMetric(scvRate, "scv-frames/s")
	b.ReportMetric(pipeRate, "pipe-frames/s")
	b.ReportMetric(scvRate/pipeRate, "ratio")
}

// rawPipeRate writes n delta-sized frames into an OS pipe from one
// goroutine and reads them back as frames in another.
func rawPipeRate(tb testing.TB, n int) float64 {
	r, w, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	body := []byte(`{"jsonrpc":"2.0","method":"scv/assistant/delta","params":{"sessionId":"0c5c7a4e-9d0c-4d7e-bd39-1f0e2a3b4c5d","seq":12345,"turnId":"7f3e2d1c-0b9a-4876-a5b4-c3d2e1f0a9b8","content":"tok "}}`)
	frame := wire.AppendFrame(nil, body)
	start := time.Now()
	go func() {
		defer w.Close()
		for i := 0; i < n; i++ {
			if _, err := w.Write(frame); err != nil {
				return
			}
		}
	}()
	reader := wire.NewReader(r, 1<<20)
	got := 0
	for ; got < n; got++ {
		if _, err := reader.ReadFrame(); err != nil {
			break
		}
	}
	elapsed := time.Since(start)
	r.Close()
	if got != n {
		tb.Fatalf("raw pipe moved %d frames, want %d", got, n)
	}
	return float64(n) / elapsed.Seconds()
}

func median(xs []float64) float64 {
	sort.Float64s(xs)
	return xs[len(xs)/2]
}
