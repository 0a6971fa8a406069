package session

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"scv/runtime/config"
	"scv/runtime/provider"
	"scv/runtime/store"
)

// benchDeltas is the size of the turn the persistence benchmark streams.
const benchDeltas = 20000

// turnWaiter counts deltas and signals a turn's end.
type turnWaiter struct {
	deltas      int
	first, last time.Time
	done        chan struct{}
}

func (w *turnWaiter) Deliver(ev Event) {
	switch ev.Payload.(type) {
	case AssistantDelta:
		if w.deltas == 0 {
			w.first = time.Now()
		}
		w.deltas++
		w.last = time.Now()
	case TurnCompleted, TurnFailed, TurnCancelled:
		close(w.done)
	}
}

// replayHome is an SCV_HOME whose replay provider streams script.
func replayHome(tb testing.TB, script string) string {
	home := tb.TempDir()
	path := filepath.Join(home, "replay.jsonl")
	if err := os.WriteFile(path, []byte(script), 0o600); err != nil {
		tb.Fatal(err)
	}
	cfg := fmt.Sprintf("[provider]\nkind = \"replay\"\nreplay_script = %q\n", path)
	if err := os.WriteFile(config.UserFile(home), []byte(cfg), 0o600); err != nil {
		tb.Fatal(err)
	}
	return home
}

// deltaRate runs one streamed turn and returns deltas per second.
func deltaRate(b *testing.B, home string, st *store.Store) float64 {
	m := NewManager(Options{Home: home, Store: st, Limits: Limits{MaxServerFrameBytes: 1 << 20}})
	w := &turnWaiter{done: make(chan struct{})}
	s, _, err := m.Start(StartParams{Cwd: b.TempDir()}, w)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.StartTurn("go", nil, "1"); err != nil {
		b.Fatal(err)
	}
	<-w.done
	// The stream's rate, first delta to last: a turn's start and end are
	// synced once per turn whatever its length.
	elapsed := w.last.Sub(w.first)
	if w.deltas != benchDeltas {
		b.Fatalf("%d deltas, want %d", w.deltas, benchDeltas)
	}
	m.Shutdown()
	return float64(w.deltas) / elapsed.Seconds()
}

// BenchmarkPersistedDeltas: a streamed turn's delta rate with the session
// stored against the same turn kept in memory only, in one run (target:
// ratio ≥ 0.9).
func BenchmarkPersistedDeltas(b *testing.B) {
	home := replayHome(b, fmt.Sprintf(`{"text":"tok ","repeat":%d}`+"\n", benchDeltas))
	st, err := store.Open(filepath.Join(home, "sessions"))
	if err != nil {
		b.Fatal(err)
	}
	var on, off []float64
	for b.Loop() {
		off = append(off, deltaRate(b, home, nil))
		on = append(on, deltaRate(b, home, st))
	}
	b.ReportMetric(medianOf(on), "stored-deltas/s")
	b.ReportMetric(medianOf(off), "memory-deltas/s")
	b.ReportMetric(medianOf(on)/medianOf(off), "ratio")
}

func medianOf(xs []float64) float64 {
	ys := append([]float64(nil), xs...)
	for i := range ys { // insertion sort: a handful of values
		for j := i; j > 0 && ys[j] < ys[j-1]; j-- {
			ys[j], ys[j-1] = ys[j-1], ys[j]
		}
	}
	return ys[len(ys)/2]
}

// storedSession writes a session of n records (turns of a prompt, a tool
// call, its result and an answer) the way a session stores them.
func storedSession(tb testing.TB, st *store.Store, cwd string, n int) string {
	var recs []store.Record
	seq := uint64(0)
	add := func(p Payload, history ...provider.Message) {
		seq++
		data, err := json.Marshal(p)
		if err == nil {
			data, err = recordData(data, recordExtras{History: history})
		}
		typ, _ := RecordType(p)
		if err != nil {
			tb.Fatal(err)
		}
		recs = append(recs, store.Record{Seq: seq, Type: typ, At: time.Now(), Data: data})
	}
	for turn := 0; len(recs) < n; turn++ {
		id := fmt.Sprintf("t%d", turn)
		prompt := fmt.Sprintf("prompt %d: explain the code in this file and change it", turn)
		add(TurnStarted{TurnID: id, Prompt: prompt}, provider.Message{Role: provider.RoleUser, Content: prompt})
		call := provider.ToolCall{ID: "c" + id, Name: "read_file", Arguments: `{"path":"main.go"}`}
		add(ToolProposed{TurnID: id, CallID: call.ID, Name: call.Name, Arguments: call.Arguments},
			provider.Message{Role: provider.RoleAssistant, ToolCalls: []provider.ToolCall{call}})
		add(ToolStarted{TurnID: id, CallID: call.ID, Name: call.Name})
		add(ToolCompleted{TurnID: id, CallID: call.ID, Name: call.Name, Success: true, Output: "package main\n\nfunc main() {}\n"})
		answer := "The file declares an empty main function; here is what I changed and why."
		add(AssistantCompleted{TurnID: id, Content: answer},
			provider.Message{Role: provider.RoleTool, ToolCallID: call.ID, Content: "package main\n\nfunc main() {}\n"},
			provider.Message{Role: provider.RoleAssistant, Content: answer})
		add(TurnCompleted{TurnID: id, Steps: 2})
	}
	id := "bench-session"
	log, err := st.CreateFrom(store.Header{ID: id, Cwd: cwd, Provider: "replay"}, recs)
	if err != nil {
		tb.Fatal(err)
	}
	if err := log.Close(); err != nil {
		tb.Fatal(err)
	}
	return id
}

// BenchmarkAttachStored: loading a stored 5,000-event session and
// attaching with the full transcript replayed (target: under 50 ms).
func BenchmarkAttachStored(b *testing.B) {
	const events = 5000
	home := replayHome(b, `{"text":"ok"}`+"\n")
	st, err := store.Open(filepath.Join(home, "sessions"))
	if err != nil {
		b.Fatal(err)
	}
	cwd, _ := filepath.EvalSymlinks(b.TempDir())
	id := storedSession(b, st, cwd, events)
	for b.Loop() {
		m := NewManager(Options{Home: home, Store: st, Limits: Limits{MaxServerFrameBytes: 1 << 20}})
		s, err := m.Load(id, config.Overrides{})
		if err != nil {
			b.Fatal(err)
		}
		a, err := s.AttachFull(discard{})
		if err != nil {
			b.Fatal(err)
		}
		if len(a.Replay) < events {
			b.Fatalf("replayed %d events, want %d", len(a.Replay), events)
		}
		b.StopTimer()
		m.Close(id)
		b.StartTimer()
	}
}
