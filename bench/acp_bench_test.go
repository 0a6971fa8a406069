package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"testing"
	"time"
)

// acpProc is a spawned `scv acp` with its stdout read line by line.
type acpProc struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines *bufio.Scanner
}

func spawnACP(tb testing.TB, home string) *acpProc {
	tb.Helper()
	cmd := exec.Command(scvBin, "acp", "--daemon=never")
	cmd.Env = append(os.Environ(), "SCV_HOME="+home, "SCV_NO_DAEMON=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	return &acpProc{cmd: cmd, in: in, lines: sc}
}

func (p *acpProc) send(tb testing.TB, line string) {
	tb.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		tb.Fatal(err)
	}
}

// until reads lines until one contains marker; it returns how many lines
// before it contained count.
func (p *acpProc) until(tb testing.TB, marker, count []byte) int {
	tb.Helper()
	n := 0
	for p.lines.Scan() {
		line := p.lines.Bytes()
		if count != nil && bytes.Contains(line, count) {
			n++
			continue
		}
		if bytes.Contains(line, marker) {
			return n
		}
	}
	tb.Fatalf("scv acp ended before %s", marker)
	return n
}

func (p *acpProc) initialize(tb testing.TB) {
	p.send(tb, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	p.until(tb, []byte(`"id":0,"result"`), nil)
}

func (p *acpProc) stop() {
	p.in.Close()
	_ = p.cmd.Wait()
}

// acpColdStart times spawn → initialize answered, n times; it reports the median.
func acpColdStart(b *testing.B, home string) time.Duration {
	start := time.Now()
	p := spawnACP(b, home)
	p.initialize(b)
	d := time.Since(start)
	p.stop()
	return d
}

func lspColdStart(b *testing.B, home string) time.Duration {
	start := time.Now()
	p := spawn(b, scvBin, home, nil, "lsp", "--daemon=never")
	initialize(b, p.client)
	d := time.Since(start)
	p.stop()
	return d
}

// BenchmarkACPColdStart: spawn `scv acp` → initialize answered against
// spawn `scv lsp` → initialize answered, interleaved, medians and their
// ratio (target: within 1.5).
func BenchmarkACPColdStart(b *testing.B) {
	home := b.TempDir()
	var acp, lsp []time.Duration
	for i := 0; i < b.N; i++ {
		acp = append(acp, acpColdStart(b, home))
		lsp = append(lsp, lspColdStart(b, home))
	}
	a, l := medianDuration(acp), medianDuration(lsp)
	b.ReportMetric(float64(a.Microseconds())/1000, "acp-ms")
	b.ReportMetric(float64(l.Microseconds())/1000, "lsp-ms")
	b.ReportMetric(float64(a)/float64(l), "ratio")
}

// acpTurn runs one prompt through `scv acp` and counts its deltas.
func acpTurn(tb testing.TB, home string) (int, time.Duration) {
	tb.Helper()
	p := spawnACP(tb, home)
	defer p.stop()
	p.initialize(tb)
	cwd := tb.TempDir()
	p.send(tb, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, cwd))
	var sid string
	for p.lines.Scan() {
		line := p.lines.Bytes()
		if i := bytes.Index(line, []byte(`"sessionId":"`)); i >= 0 && bytes.Contains(line, []byte(`"id":1,"result"`)) {
			rest := line[i+len(`"sessionId":"`):]
			sid = string(rest[:bytes.IndexByte(rest, '"')])
			break
		}
	}
	start := time.Now()
	p.send(tb, fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"go"}]}}`, sid))
	n := p.until(tb, []byte(`"id":2,"result"`), []byte(`"agent_message_chunk"`))
	return n, time.Since(start)
}

// BenchmarkACPStreamedDeltas: 100 000 deltas from the replay provider
// through `scv acp` and through `scv lsp`, interleaved, in deltas per
// second; the ratio is ACP's over LSP's (target: at least 0.8).
func BenchmarkACPStreamedDeltas(b *testing.B) {
	home := replayHome(b, fmt.Sprintf(`{"text":"tok ","repeat":%d}`+"\n", streamDeltas))
	var acpRates, lspRates []float64
	for i := 0; i < b.N; i++ {
		n, elapsed := acpTurn(b, home)
		if n != streamDeltas {
			b.Fatalf("scv acp delivered %d deltas, want %d", n, streamDeltas)
		}
		acpRates = append(acpRates, float64(n)/elapsed.Seconds())
		m, elapsed, _ := runTurn(b, home)
		if m != streamDeltas {
			b.Fatalf("scv lsp delivered %d deltas, want %d", m, streamDeltas)
		}
		lspRates = append(lspRates, float64(m)/elapsed.Seconds())
	}
	a, l := median(acpRates), median(lspRates)
	b.ReportMetric(a, "acp-deltas/s")
	b.ReportMetric(l, "lsp-deltas/s")
	b.ReportMetric(a/l, "ratio")
}

func medianDuration(xs []time.Duration) time.Duration {
	sort.Slice(xs, func(i, j int) bool { return xs[i] < xs[j] })
	return xs[len(xs)/2]
}
