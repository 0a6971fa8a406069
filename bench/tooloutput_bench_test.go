package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"scv/internal/fakeopenai"
	"scv/lsp"
	"scv/lsp/client"
	"scv/lsp/schema"
	"scv/runtime/provider"
	"scv/runtime/store"
)

// liveRecorder follows one connection's notifications: deltas per
// session, the arrival times of tool output chunks, and turn ends.
type liveRecorder struct {
	mu      sync.Mutex
	deltas  map[string]int
	first   map[string]time.Time
	last    map[string]time.Time
	chunks  []time.Time
	started chan struct{} // a tool started
	ended   map[string]chan struct{}
}

func newLiveRecorder() *liveRecorder {
	return &liveRecorder{deltas: map[string]int{}, first: map[string]time.Time{}, last: map[string]time.Time{},
		started: make(chan struct{}, 16), ended: map[string]chan struct{}{}}
}

// expect returns a channel closed when the next turn of sid ends.
func (r *liveRecorder) expect(sid string) chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	ch := make(chan struct{})
	r.ended[sid] = ch
	return ch
}

func (r *liveRecorder) notify(n client.Notification) {
	var head struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(n.Params, &head)
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	switch n.Method {
	case schema.EvAssistantDelta:
		if r.deltas[head.SessionID] == 0 {
			r.first[head.SessionID] = now
		}
		r.deltas[head.SessionID]++
		r.last[head.SessionID] = now
	case schema.EvToolOutput:
		r.chunks = append(r.chunks, now)
	case schema.EvToolStarted:
		r.started <- struct{}{}
	case schema.EvTurnCompleted, schema.EvTurnFailed, schema.EvTurnCancelled:
		if ch := r.ended[head.SessionID]; ch != nil {
			close(ch)
			delete(r.ended, head.SessionID)
		}
	}
}

// rate is a session's deltas and their rate, first to last.
func (r *liveRecorder) rate(sid string) (int, float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.deltas[sid], float64(r.deltas[sid]) / r.last[sid].Sub(r.first[sid]).Seconds()
}

// busiestSecond is the most output chunks that arrived within one second.
func (r *liveRecorder) busiestSecond() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	most := 0
	for i, start := range r.chunks {
		n := 0
		for _, t := range r.chunks[i:] {
			if t.Sub(start) >= time.Second {
				break
			}
			n++
		}
		most = max(most, n)
	}
	return most
}

// window is one editor connection to the in-process server.
type window struct {
	c   *client.Client
	rec *liveRecorder
}

// liveServer serves connections in this process like `scv lsp` serves
// its editor: stored sessions on, each connection a pair of OS pipes.
type liveServer struct {
	srv    *lsp.Server
	served sync.WaitGroup
}

func (s *liveServer) connect(tb testing.TB) *window {
	toServer, fromClient, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	toClient, fromServer, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	s.served.Add(1)
	go func() {
		defer s.served.Done()
		s.srv.ServeConn(context.Background(), pipeConn{toServer, fromServer, []io.Closer{toServer, fromServer}})
	}()
	w := &window{rec: newLiveRecorder()}
	w.c = client.New(pipeConn{toClient, fromClient, []io.Closer{toClient, fromClient}}, w.rec.notify)
	initialize(tb, w.c)
	return w
}

func (w *window) start(ctx context.Context, tb testing.TB, params schema.SessionStartParams) string {
	var snap struct{ SessionID string }
	if err := w.c.Call(ctx, schema.MethodSessionStart, params, &snap); err != nil {
		tb.Fatal(err)
	}
	return snap.SessionID
}

func (w *window) turn(ctx context.Context, tb testing.TB, sid string) chan struct{} {
	ended := w.rec.expect(sid)
	if err := w.c.Call(ctx, schema.MethodTurnStart, schema.TurnStartParams{SessionID: sid, Prompt: schema.Ptr("go")}, nil); err != nil {
		tb.Fatal(err)
	}
	return ended
}

func await(ctx context.Context, tb testing.TB, ch chan struct{}) {
	select {
	case <-ch:
	case <-ctx.Done():
		tb.Fatal("a turn did not end")
	}
}

// BenchmarkLiveToolOutput: in one server, a window's session streams
// 100 000 deltas (replay provider) while another window's session runs a
// shell command that prints 50 MB at once (50MB) or 200 000 short lines
// one write each, a test runner's pace (lines), then waits until the
// stream is done. Reported: the most scv/tool/output events the printing
// window received in any second (target ≤ ~20), and the streaming
// session's delta rate against the same stream with no command running,
// alternated in one run (target ratio ≥ 0.9), and against the stream
// beside the same command run outside scv (what the command's own CPU
// use leaves on a small machine).
func BenchmarkLiveToolOutput(b *testing.B) {
	for _, tc := range []struct{ name, print string }{
		{"50MB", "head -c 50000000 /dev/zero | tr '\\0' x"},
		{"lines", `i=0; while [ $i -lt 200000 ]; do echo "line $i"; i=$((i+1)); done`},
	} {
		b.Run(tc.name, func(b *testing.B) { benchLiveOutput(b, tc.print) })
	}
}

func benchLiveOutput(b *testing.B, print string) {
	home := replayHome(b, fmt.Sprintf(`{"text":"tok ","repeat":%d}`+"\n", streamDeltas))
	cfg, err := os.ReadFile(filepath.Join(home, "config.toml"))
	if err != nil {
		b.Fatal(err)
	}
	// The result is capped below a frame (4 MiB); the live view is what
	// is measured.
	cfg = append(cfg, "model = \"m\"\n[tools]\nmax_output_bytes = 4194304\n"...)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), cfg, 0o600); err != nil {
		b.Fatal(err)
	}
	st, err := store.Open(filepath.Join(home, "sessions"))
	if err != nil {
		b.Fatal(err)
	}
	fake := fakeopenai.New(b)
	server := &liveServer{srv: lsp.NewServer(lsp.Options{Home: home, Store: st, Getenv: func(string) string { return "" }})}
	streaming, printing := server.connect(b), server.connect(b)
	defer func() {
		streaming.c.Close()
		printing.c.Close()
		server.served.Wait()
		server.srv.Shutdown()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	var alone, together, control []float64
	for i := 0; i < b.N; i++ {
		control = append(control, streamBesideCommand(ctx, b, streaming, print))
		sid := streaming.start(ctx, b, schema.SessionStartParams{Cwd: b.TempDir()})
		await(ctx, b, streaming.turn(ctx, b, sid))
		n, r := streaming.rec.rate(sid)
		if n != streamDeltas {
			b.Fatalf("received %d deltas, want %d", n, streamDeltas)
		}
		alone = append(alone, r)

		work := b.TempDir()
		fifo := filepath.Join(work, "release")
		if err := unix.Mkfifo(fifo, 0o600); err != nil {
			b.Fatal(err)
		}
		args, _ := json.Marshal(map[string]string{"command": print + "; read line < " + fifo})
		fake.Enqueue(fakeopenai.Reply{ToolCalls: []provider.ToolCall{{ID: "print", Name: "shell", Arguments: string(args)}}})
		printer := printing.start(ctx, b, schema.SessionStartParams{Cwd: work, Provider: "openai", BaseURL: fake.URL(), ApprovalPolicy: "auto"})
		sid = streaming.start(ctx, b, schema.SessionStartParams{Cwd: b.TempDir()})
		printed := printing.turn(ctx, b, printer)
		<-printing.rec.started
		await(ctx, b, streaming.turn(ctx, b, sid))
		if err := os.WriteFile(fifo, []byte("go\n"), 0o600); err != nil {
			b.Fatal(err)
		}
		await(ctx, b, printed)
		n, r = streaming.rec.rate(sid)
		if n != streamDeltas {
			b.Fatalf("received %d deltas, want %d", n, streamDeltas)
		}
		together = append(together, r)
	}
	printing.rec.mu.Lock()
	chunks := len(printing.rec.chunks)
	printing.rec.mu.Unlock()
	b.ReportMetric(float64(printing.rec.busiestSecond()), "max-output-events/s")
	b.ReportMetric(float64(chunks)/float64(b.N), "output-events/run")
	b.ReportMetric(median(together), "deltas/s-with-output")
	b.ReportMetric(median(alone), "deltas/s-alone")
	b.ReportMetric(median(together)/median(alone), "ratio")
	b.ReportMetric(median(together)/median(control), "ratio-vs-command-outside-scv")
}

// streamBesideCommand is the stream's rate while the same command runs
// outside scv (its output to /dev/null): what the machine's CPUs allow
// the stream beside that command, whatever scv does with its output.
func streamBesideCommand(ctx context.Context, b *testing.B, streaming *window, print string) float64 {
	fifo := filepath.Join(b.TempDir(), "release")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", print+"; read line < "+fifo)
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	sid := streaming.start(ctx, b, schema.SessionStartParams{Cwd: b.TempDir()})
	await(ctx, b, streaming.turn(ctx, b, sid))
	if err := os.WriteFile(fifo, []byte("go\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		b.Fatal(err)
	}
	n, r := streaming.rec.rate(sid)
	if n != streamDeltas {
		b.Fatalf("received %d deltas, want %d", n, streamDeltas)
	}
	return r
}
