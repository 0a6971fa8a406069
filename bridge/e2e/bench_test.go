package e2e

import (
	"fmt"
	"testing"
	"time"

	"scv/bridge"
	"scv/lsp/wire"
	"scv/runtime/session"
)

// The figures, each measured against a baseline taken in the same
// run and reported as a ratio:
//
//   - BenchmarkRoundTrip: scv/queue/list through `scv lsp` forwarding to
//     the daemon vs `scv lsp --daemon=never` serving in-process (p50).
//   - BenchmarkDeltaThroughput: a 100 000-delta replay turn through bridge
//     and daemon vs in-process.
//   - BenchmarkFanOut: event delivery p99 to 31 reading connections, with a
//     32nd attached that reads nothing, vs one connection alone (and vs
//     the 31 before the 32nd attached).
//   - BenchmarkDaemonRSS: daemon VmRSS with 32 connections and 8 sessions
//     vs the idle daemon.

const (
	benchDeltas = 100_000
	// fanOutReaders read every event; one more connection reads nothing.
	fanOutReaders = 31
	// fanOutQueueBytes is the outbound budget in the fan-out run: small, so
	// the connection that reads nothing is full before measuring starts.
	fanOutQueueBytes = 4 << 20
	// fanOutAloneEvents are timed before the non-reading connection
	// attaches: the 31 readers' p99 without it.
	fanOutAloneEvents = 1000
	rssConnections    = 32
	rssSessions       = 8
	// rssTurnDeltas streams through each session before RSS is read, so the
	// replay rings hold real events.
	rssTurnDeltas = 2_000
)

func BenchmarkRoundTrip(b *testing.B) {
	e := newEnv(b)
	e.daemon()
	inproc := e.benchBridge("--daemon=never")
	forwarded := e.benchBridge("--daemon=auto")
	sidIn := inproc.startSession(e, "")
	sidFw := forwarded.startSession(e, "")
	var in, fw []time.Duration
	var q session.QueueState
	// Each iteration times one request on each path, so both see the same
	// machine load.
	for b.Loop() {
		t0 := time.Now()
		inproc.call("scv/queue/list", map[string]any{"sessionId": sidIn}, &q)
		t1 := time.Now()
		forwarded.call("scv/queue/list", map[string]any{"sessionId": sidFw}, &q)
		t2 := time.Now()
		in, fw = append(in, t1.Sub(t0)), append(fw, t2.Sub(t1))
	}
	pIn, pFw := percentile(in, 0.5), percentile(fw, 0.5)
	b.ReportMetric(micros(pIn), "p50-inproc-µs")
	b.ReportMetric(micros(pFw), "p50-daemon-µs")
	b.ReportMetric(micros(pFw-pIn), "p50-overhead-µs")
	b.ReportMetric(float64(pFw)/float64(pIn), "p50-daemon/inproc")
}

func BenchmarkDeltaThroughput(b *testing.B) {
	e := newEnv(b)
	e.useReplay(fmt.Sprintf(`{"text":"x","repeat":%d}`, benchDeltas), `{"usage":{"input_tokens":1,"output_tokens":1}}`)
	e.daemon()
	inproc := e.benchBridge("--daemon=never")
	forwarded := e.benchBridge("--daemon=auto")
	sidIn := inproc.startSession(e, "replay")
	sidFw := forwarded.startSession(e, "replay")
	var in, fw time.Duration
	for b.Loop() {
		t0 := time.Now()
		inproc.turn(sidIn)
		t1 := time.Now()
		forwarded.turn(sidFw)
		in, fw = in+t1.Sub(t0), fw+time.Since(t1)
	}
	for name, bc := range map[string]*benchConn{"in-process": inproc, "forwarded": forwarded} {
		if got := bc.deltas.Load(); got != int64(b.N)*benchDeltas {
			b.Fatalf("%s: received %d deltas, want %d", name, got, int64(b.N)*benchDeltas)
		}
	}
	rateIn := float64(b.N*benchDeltas) / in.Seconds()
	rateFw := float64(b.N*benchDeltas) / fw.Seconds()
	b.ReportMetric(rateIn, "inproc-deltas/s")
	b.ReportMetric(rateFw, "daemon-deltas/s")
	b.ReportMetric(rateFw/rateIn, "daemon/inproc")
}

func BenchmarkFanOut(b *testing.B) {
	e := newEnv(b)
	e.set("protocol", "outbound_queue_bytes", fanOutQueueBytes)
	e.set("protocol", "max_server_frame_bytes", 1<<20)
	e.useReplay(fmt.Sprintf(`{"text":"x","repeat":%d}`, benchDeltas), `{"usage":{"input_tokens":1,"output_tokens":1}}`)
	d := e.daemon()
	control := e.benchDirect(nil)
	start := func(provider string) string {
		sid := control.startSession(e, provider)
		control.call("scv/session/detach", map[string]any{"sessionId": sid}, nil)
		return sid
	}
	alone, shared, flood := start(""), start(""), start("replay")

	attach := func(sid string) *fanReader {
		r := &fanReader{sid: sid, arrived: make(chan arrival, 1024)}
		bc := e.benchDirect(r.event)
		var snap session.Snapshot
		bc.call("scv/session/attach", map[string]any{"sessionId": sid}, &snap)
		r.mu.Lock()
		r.next = snap.Seq + 1
		r.mu.Unlock()
		return r
	}
	single := attach(alone)
	readers := make([]*fanReader, fanOutReaders)
	for i := range readers {
		readers[i] = attach(shared)
	}
	// Each pause toggle is one event, paced by the control connection.
	paused := map[string]bool{}
	toggle := func(sid string) time.Time {
		paused[sid] = !paused[sid]
		t0 := time.Now()
		control.call("scv/session/pause", map[string]any{"sessionId": sid, "paused": paused[sid]}, nil)
		return t0
	}
	collect := func(r *fanReader, t0 time.Time, into *[]time.Duration) {
		select {
		case a := <-r.arrived:
			*into = append(*into, a.at.Sub(t0))
		case <-time.After(waitTimeout):
			b.Fatalf("an event did not reach a reader within %v", waitTimeout)
		}
	}
	// First the 31 readers alone, to tell the cost of fanning out from
	// that of the connection that does not read.
	var none []time.Duration
	for range fanOutAloneEvents {
		t0 := toggle(shared)
		for _, r := range readers {
			collect(r, t0, &none)
		}
	}

	// The 32nd connection sends its requests and never reads: a flood in a
	// session only it watches fills its queue before measuring starts.
	stalled := rawConnTB(b, e)
	for i, req := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"scv/session/attach","params":{"sessionId":%q}}`, flood),
		fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"scv/session/attach","params":{"sessionId":%q}}`, shared),
	} {
		if _, err := stalled.Write(wire.AppendFrame(nil, []byte(req))); err != nil {
			b.Fatalf("stalled connection request %d: %v", i+1, err)
		}
	}
	awaitSessions(b, control, func(s map[string]session.Summary) bool {
		return s[shared].Clients == fanOutReaders+1 && s[flood].Clients == 1
	})
	control.call("scv/turn/start", map[string]any{"sessionId": flood, "prompt": "flood"}, nil)
	awaitSessions(b, control, func(s map[string]session.Summary) bool { return s[flood].State == "idle" })

	var one, many []time.Duration
	for b.Loop() {
		t0 := toggle(alone)
		collect(single, t0, &one)
		t0 = toggle(shared)
		for _, r := range readers {
			collect(r, t0, &many)
		}
	}
	b.StopTimer()
	for _, r := range append(readers, single) {
		r.mu.Lock()
		err := r.err
		r.mu.Unlock()
		if err != nil {
			b.Fatal(err)
		}
	}
	// The stalled connection lost events and, read at last, is told so.
	awaitLagged(b, stalled, shared)
	if d.exited() {
		b.Fatal("the daemon exited")
	}
	p99One, p99Many := percentile(one, 0.99), percentile(many, 0.99)
	b.ReportMetric(micros(percentile(one, 0.5)), "p50-1conn-µs")
	b.ReportMetric(micros(percentile(many, 0.5)), "p50-31of32-µs")
	b.ReportMetric(micros(p99One), "p99-1conn-µs")
	b.ReportMetric(micros(p99Many), "p99-31of32-µs")
	b.ReportMetric(micros(percentile(none, 0.99)), "p99-31of31-µs")
	b.ReportMetric(float64(p99Many)/float64(p99One), "p99-ratio")
	b.ReportMetric(float64(p99Many)/float64(percentile(none, 0.99)), "p99-stalled/none")
}

func BenchmarkDaemonRSS(b *testing.B) {
	e := newEnv(b)
	e.useReplay(fmt.Sprintf(`{"text":"hello ","repeat":%d}`, rssTurnDeltas), `{"usage":{"input_tokens":10,"output_tokens":2000}}`)
	d := e.daemon()
	pid := d.cmd.Process.Pid
	idle := vmRSS(b, pid)

	conns := make([]*benchConn, rssConnections)
	sids := make([]string, rssSessions)
	for i := range conns {
		conns[i] = e.benchDirect(nil)
		if i < rssSessions {
			sids[i] = conns[i].startSession(e, "replay")
		} else {
			conns[i].call("scv/session/attach", map[string]any{"sessionId": sids[i%rssSessions], "afterSeq": 0}, nil)
		}
	}
	for i, sid := range sids {
		conns[i].turn(sid)
	}
	var st bridge.DaemonStatus
	for b.Loop() {
		conns[0].call("scv/daemon/status", map[string]any{}, &st)
	}
	b.StopTimer()
	if st.Clients != rssConnections {
		b.Fatalf("the daemon reports %d connections, want %d", st.Clients, rssConnections)
	}
	rss := vmRSS(b, pid)
	b.ReportMetric(float64(idle)/(1<<20), "idle-RSS-MB")
	b.ReportMetric(float64(rss)/(1<<20), "RSS-MB")
	b.ReportMetric(float64(rss)/float64(idle), "RSS/idle")
}
