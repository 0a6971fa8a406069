package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

const (
	// memSessions sessions each run memTurns turns of a memAnswerBytes
	// answer (streamed as memAnswerDeltas deltas) in BenchmarkDaemonSessionMemory.
	memSessions      = 30
	memTurns         = 3
	memAnswerDeltas  = 1000
	memAnswerBytes   = 3_900_000
	memReleaseWait   = 10 * time.Second
	memReleasePoll   = 50 * time.Millisecond
	memReleaseTarget = 2 // × the idle RSS: what "back near idle" means here
)

// BenchmarkDaemonSessionMemory measures a daemon's RSS against its idle
// RSS with memSessions sessions of memTurns large answers each, and again
// after they are all closed: whether a session is held to its replay
// budget and whether a long-lived daemon gives the memory back.
func BenchmarkDaemonSessionMemory(b *testing.B) {
	e := newEnv(b)
	chunk := strings.Repeat("y", memAnswerBytes/memAnswerDeltas)
	e.useReplay(fmt.Sprintf(`{"text":%q,"repeat":%d}`, chunk, memAnswerDeltas), `{"usage":{"input_tokens":10,"output_tokens":2000}}`)
	d := e.daemon()
	pid := d.cmd.Process.Pid
	bc := e.benchDirect(nil)
	idle := vmRSS(b, pid)

	sids := make([]string, memSessions)
	for i := range sids {
		sids[i] = bc.startSession(e, "replay")
		for range memTurns {
			bc.turn(sids[i])
		}
	}
	loaded := vmRSS(b, pid)
	for b.Loop() {
		// The measure is the state above; the loop only satisfies the harness.
	}
	b.StopTimer()
	for _, sid := range sids {
		bc.call("scv/session/close", map[string]any{"sessionId": sid}, nil)
	}
	// The memory goes back asynchronously: poll, bounded (a measure, not
	// a pass/fail condition).
	closed := vmRSS(b, pid)
	for deadline := time.Now().Add(memReleaseWait); closed > memReleaseTarget*idle && time.Now().Before(deadline); {
		time.Sleep(memReleasePoll)
		closed = vmRSS(b, pid)
	}
	if d.exited() {
		b.Fatal("the daemon exited")
	}
	mb := func(n int64) float64 { return float64(n) / (1 << 20) }
	b.ReportMetric(mb(idle), "idle-RSS-MB")
	b.ReportMetric(mb(loaded), "loaded-RSS-MB")
	b.ReportMetric(mb(loaded-idle)/memSessions, "RSS-MB/session")
	b.ReportMetric(float64(loaded)/float64(idle), "loaded/idle")
	b.ReportMetric(mb(closed), "closed-RSS-MB")
	b.ReportMetric(float64(closed)/float64(idle), "closed/idle")
}
