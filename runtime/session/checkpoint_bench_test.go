package session

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"scv/internal/fakeopenai"
	"scv/runtime/provider"
)

// timedTurn runs one turn making calls and returns how long it took, from
// the request to its terminal event, and to its changes when it has any
// (they follow the terminal event). It waits for the turn's goroutine, so
// a first checkpoint of a large workspace may take as long as it takes.
func timedTurn(b *testing.B, r *ckptRig, calls []provider.ToolCall) (end, changes time.Duration) {
	r.srv.Enqueue(fakeopenai.Reply{ToolCalls: calls}, fakeopenai.Reply{Chunks: []string{"done"}})
	start := time.Now()
	if _, err := r.s.StartTurn("go", nil, "1"); err != nil {
		b.Fatal(err)
	}
	r.s.turns.Wait()
	r.turns++
	end = r.rec.sinceStart(b, TurnCompleted{}, r.turns, start)
	if r.s.ckpt.root != nil {
		r.changes++
		changes = r.rec.sinceStart(b, TurnChanges{}, r.changes, start)
	}
	return end, changes
}

// sinceStart is how long after start the n-th event of kind's type arrived.
func (r *waitingRecorder) sinceStart(b *testing.B, kind Payload, n int, start time.Time) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := 0
	for i, ev := range r.events {
		if reflect.TypeOf(ev.Payload) == reflect.TypeOf(kind) {
			if seen++; seen == n {
				return r.at[i].Sub(start)
			}
		}
	}
	b.Fatalf("no %T #%d arrived", kind, n)
	return 0
}

// hundredWrites are the calls of a turn that rewrites 100 files of 10 KB.
func hundredWrites(round int) []provider.ToolCall {
	calls := make([]provider.ToolCall, 100)
	for i := range calls {
		content := strings.Repeat(fmt.Sprintf("round %d line %d\n", round, i), 10<<10)[:10<<10]
		calls[i] = call(fmt.Sprint("c", i), "write_file", map[string]any{"path": fmt.Sprintf("src/f%03d.txt", i), "content": content})
	}
	return calls
}

// BenchmarkCheckpointOverhead: a turn that rewrites 100 files of 10 KB,
// with checkpoints on against the same turn with them off, in one run
// (target: ratio < 1.05). Each round rewrites every file, so every turn
// takes its checkpoint before and its snapshot after.
func BenchmarkCheckpointOverhead(b *testing.B) {
	on := newCkptRig(b, "")
	off := newCkptRig(b, "[checkpoints]\nenabled = false\n")
	for _, r := range []*ckptRig{on, off} {
		timedTurn(b, r, hundredWrites(-1)) // creates the files; on: the first checkpoint
	}
	var tOn, tOff, tChanges []float64
	round := 0
	for b.Loop() {
		off, _ := timedTurn(b, off, hundredWrites(round))
		on, changes := timedTurn(b, on, hundredWrites(round))
		tOff, tOn, tChanges = append(tOff, off.Seconds()), append(tOn, on.Seconds()), append(tChanges, changes.Seconds())
		round++
	}
	b.ReportMetric(medianOf(tChanges)*1000, "on-changes-ms/turn")
	b.ReportMetric(medianOf(tChanges)/medianOf(tOff), "ratio-to-changes")
	b.ReportMetric(medianOf(tOn)*1000, "on-ms/turn")
	b.ReportMetric(medianOf(tOff)*1000, "off-ms/turn")
	b.ReportMetric(medianOf(tOn)/medianOf(tOff), "ratio")
	// The turns' times swing with the machine's load more than the
	// checkpoint costs, so its own work is also timed: the same
	// checkpoint, touches and snapshot on the same workspace.
	onPath, after := checkpointCycle(b, on, hundredWrites(round))
	b.ReportMetric(onPath.Seconds()*1000, "checkpoint-ms/turn")
	b.ReportMetric(after.Seconds()*1000, "after-snapshot-ms/turn")
	b.ReportMetric(1+onPath.Seconds()/medianOf(tOff), "ratio-from-checkpoint-time")
}

// checkpointCycle times what a turn's checkpoint does for calls: the
// snapshot before and each file tool's touch (in the turn's way), and
// apart the snapshot after (taken once the turn has ended).
func checkpointCycle(b *testing.B, r *ckptRig, calls []provider.ToolCall) (onPath, after time.Duration) {
	ctx := context.Background()
	repo, err := r.s.checkpointRepo(ctx, true)
	if err != nil {
		b.Fatal(err)
	}
	var spent time.Duration
	start := time.Now()
	t, err := repo.Begin(ctx, "bench", true)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range calls {
		var a struct{ Path, Content string }
		json.Unmarshal([]byte(c.Arguments), &a)
		if err := t.Touch(ctx, a.Path); err != nil {
			b.Fatal(err)
		}
		spent += time.Since(start)
		if err := os.WriteFile(filepath.Join(r.ws, a.Path), []byte(a.Content), 0o644); err != nil {
			b.Fatal(err)
		}
		start = time.Now()
	}
	t.ToolDone()
	if _, err := t.Finish(ctx); err != nil {
		b.Fatal(err)
	}
	return spent, time.Since(start)
}

// BenchmarkCheckpointLargeWorkspace: a turn running one shell command in
// a workspace of 50,000 files once its first checkpoint exists, against
// the same turn with checkpoints off (target: added < 300 ms).
func BenchmarkCheckpointLargeWorkspace(b *testing.B) {
	on := newCkptRig(b, "")
	off := newCkptRig(b, "[checkpoints]\nenabled = false\n")
	for _, r := range []*ckptRig{on, off} {
		for d := range 100 {
			dir := filepath.Join(r.ws, fmt.Sprintf("pkg%03d", d))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
			for f := range 500 {
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.go", f)), []byte(fmt.Sprintf("package p\n\nconst X%d = %d\n", f, d)), 0o644); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	shell := func(round int) []provider.ToolCall {
		return []provider.ToolCall{call("c1", "shell", map[string]any{"command": fmt.Sprintf("echo %d > pkg000/f000.go", round)})}
	}
	walk := statWalk(b, on.ws)
	_, first := timedTurn(b, on, shell(-1))
	timedTurn(b, off, shell(-1))
	var tOn, tOff, tChanges []float64
	round := 0
	for b.Loop() {
		off, _ := timedTurn(b, off, shell(round))
		on, changes := timedTurn(b, on, shell(round))
		tOff, tOn, tChanges = append(tOff, off.Seconds()), append(tOn, on.Seconds()), append(tChanges, changes.Seconds())
		round++
	}
	b.ReportMetric(first.Seconds()*1000, "first-checkpoint-turn-ms")
	b.ReportMetric(medianOf(tOn)*1000, "on-ms/turn")
	b.ReportMetric(medianOf(tOff)*1000, "off-ms/turn")
	// added-ms is what the checkpoint adds to the turn (its end comes
	// before the snapshot after it); changes-added-ms is how much later
	// than a turn without checkpoints its changes are known.
	b.ReportMetric((medianOf(tOn)-medianOf(tOff))*1000, "added-ms")
	b.ReportMetric((medianOf(tChanges)-medianOf(tOff))*1000, "changes-added-ms")
	// A snapshot must lstat every file, twice a shell turn (before the
	// command and after it): how long one walk takes on this machine puts
	// added-ms in proportion.
	b.ReportMetric(statWalk(b, on.ws).Seconds()*1000, "lstat-walk-ms")
	b.ReportMetric(walk.Seconds()*1000, "cold-lstat-walk-ms")
}

// statWalk times one walk of dir that lstats every file.
func statWalk(b *testing.B, dir string) time.Duration {
	start := time.Now()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			_, err = os.Lstat(path)
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}
