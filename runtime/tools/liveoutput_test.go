package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// chunkRecorder collects live output and signals each chunk.
type chunkRecorder struct {
	mu     sync.Mutex
	chunks []string
	got    chan struct{}
}

func newChunkRecorder() *chunkRecorder { return &chunkRecorder{got: make(chan struct{}, 1024)} }

func (r *chunkRecorder) add(chunk string) {
	r.mu.Lock()
	r.chunks = append(r.chunks, chunk)
	r.mu.Unlock()
	r.got <- struct{}{}
}

func (r *chunkRecorder) text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.chunks, "")
}

// waitFor waits until the chunks so far contain want.
func (r *chunkRecorder) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.NewTimer(liveBound)
	defer deadline.Stop()
	for !strings.Contains(r.text(), want) {
		select {
		case <-r.got:
		case <-deadline.C:
			t.Fatalf("no live output %q within %s; got %q", want, liveBound, r.text())
		}
	}
}

// Shell output reaches the OutputFunc while the command still runs: the
// command prints, then blocks on a fifo the test opens only after the
// first chunk arrived.
func TestShellStreamsOutputWhileRunning(t *testing.T) {
	ws := newTestWorkspace(t)
	fifo := filepath.Join(t.TempDir(), "go")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	tool := toolNamed(t, ws, testLimits(), "shell")
	rec := newChunkRecorder()
	ctx := WithOutput(context.Background(), rec.add)
	done := make(chan Result, 1)
	go func() {
		done <- tool.Run(ctx, argsJSON(t, map[string]any{"command": "echo before; echo oops >&2; cat " + fifo + "; echo after"}))
	}()
	rec.waitFor(t, "before\noops\n")
	select {
	case res := <-done:
		t.Fatalf("the tool completed before it was released: %+v", res)
	default:
	}
	if err := os.WriteFile(fifo, []byte("released\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if want := "before\noops\nreleased\nafter\n[exit code: 0]"; res.Output != want {
		t.Fatalf("result = %q, want %q", res.Output, want)
	}
	// Every chunk was handed over before Run returned, and together they
	// are the output without the status line.
	if got := rec.text(); got != "before\noops\nreleased\nafter\n" {
		t.Fatalf("live output = %q", got)
	}
}

// Live output is bounded by the same cap as the result.
func TestShellLiveOutputIsCapped(t *testing.T) {
	ws := newTestWorkspace(t)
	limits := testLimits()
	tool := toolNamed(t, ws, limits, "shell")
	rec := newChunkRecorder()
	res := tool.Run(WithOutput(context.Background(), rec.add), argsJSON(t, map[string]any{"command": "head -c 1000000 /dev/zero | tr '\\0' x"}))
	if !res.Truncated {
		t.Fatalf("result not truncated: %d bytes", len(res.Output))
	}
	if got := rec.text(); len(got) != limits.MaxOutputBytes || strings.Trim(got, "x") != "" {
		t.Fatalf("live output has %d bytes, want %d x's", len(got), limits.MaxOutputBytes)
	}
}

// A rune split between two reads is never split between two chunks.
func TestLiveOutputKeepsRunesWhole(t *testing.T) {
	rec := newChunkRecorder()
	l := &liveOutput{emit: rec.add, left: 100}
	_, _ = l.Write([]byte("a\xc3"))
	l.flush(false)
	_, _ = l.Write([]byte("\xa9b"))
	l.flush(true)
	if len(rec.chunks) != 2 || rec.chunks[0] != "a" || rec.chunks[1] != "éb" {
		t.Fatalf("chunks = %q", rec.chunks)
	}
}

// A burst larger than one chunk is cut to MaxOutputChunkBytes with a note
// of what was left out, so no chunk outgrows a frame.
func TestLiveOutputBoundsAChunk(t *testing.T) {
	rec := newChunkRecorder()
	l := &liveOutput{emit: rec.add, left: 4 * MaxOutputChunkBytes}
	_, _ = l.Write([]byte(strings.Repeat("y", MaxOutputChunkBytes+10)))
	l.flush(false)
	_, _ = l.Write([]byte("tail"))
	l.flush(true)
	if len(rec.chunks) != 2 || rec.chunks[1] != "tail" {
		t.Fatalf("%d chunks, last %q", len(rec.chunks), rec.chunks[len(rec.chunks)-1])
	}
	want := strings.Repeat("y", MaxOutputChunkBytes) + "\n[10 bytes printed meanwhile are not shown live]\n"
	if rec.chunks[0] != want {
		t.Fatalf("first chunk has %d bytes and ends %q", len(rec.chunks[0]), rec.chunks[0][len(rec.chunks[0])-60:])
	}
}

// A panic of the sink reaches the goroutine that runs the tool, where the
// turn recovers it, instead of ending the process on the ticker's goroutine.
func TestLiveOutputPanicReachesTheCaller(t *testing.T) {
	l := startLiveOutput(WithOutput(context.Background(), func(string) { panic("sink broke") }), 100)
	_, _ = l.Write([]byte("x"))
	defer func() {
		if r := recover(); r != "sink broke" {
			t.Fatalf("recovered %v", r)
		}
	}()
	l.Close()
	t.Fatal("Close returned without the panic")
}
