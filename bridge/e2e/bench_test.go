package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"scv/bridge"
	"scv/lsp/client"
	"scv/lsp/schema"
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

// benchConn is a lean editor connection: it counts deltas and signals turn
// ends without decoding every notification, so the client side stays
// cheap next to what is measured.
type benchConn struct {
	t         testing.TB
	c         *client.Client
	deltas    atomic.Int64
	completed chan struct{}
	// onEvent, when set before any event arrives, sees every notification.
	onEvent func(n client.Notification, at time.Time)
}

func newBenchConn(t testing.TB) *benchConn {
	return &benchConn{t: t, completed: make(chan struct{}, 1)}
}

func (bc *benchConn) notify(n client.Notification) {
	switch n.Method {
	case schema.EvAssistantDelta:
		bc.deltas.Add(1)
	case schema.EvTurnCompleted:
		select {
		case bc.completed <- struct{}{}:
		default:
		}
	}
	if bc.onEvent != nil {
		bc.onEvent(n, time.Now())
	}
}

// benchBridge is a `scv lsp args...` process as a lean editor sees it.
func (e *env) benchBridge(args ...string) *benchConn {
	e.t.Helper()
	bc := newBenchConn(e.t)
	rwc, _ := e.bridgeProc(args...)
	bc.c = client.New(rwc, bc.notify)
	e.t.Cleanup(func() { bc.c.Close() })
	bc.initialize()
	return bc
}

// benchDirect is a lean connection straight to the daemon socket.
func (e *env) benchDirect(onEvent func(client.Notification, time.Time)) *benchConn {
	e.t.Helper()
	conn, err := bridge.Connect(e.socket)
	if err != nil {
		e.t.Fatal(err)
	}
	bc := newBenchConn(e.t)
	bc.onEvent = onEvent
	bc.c = client.New(conn, bc.notify)
	e.t.Cleanup(func() { bc.c.Close() })
	bc.initialize()
	return bc
}

func (bc *benchConn) call(method string, params, result any) {
	bc.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if err := bc.c.Call(ctx, method, params, result); err != nil {
		bc.t.Fatalf("%s: %v", method, err)
	}
}

func (bc *benchConn) initialize() {
	bc.call("initialize", map[string]any{"capabilities": map[string]any{}}, nil)
}

func (bc *benchConn) startSession(e *env, provider string) string {
	var snap session.Snapshot
	bc.call("scv/session/start", map[string]any{"cwd": e.work, "provider": provider}, &snap)
	return snap.SessionID
}

// turn runs one turn and waits for its turn/completed.
func (bc *benchConn) turn(sid string) {
	bc.t.Helper()
	bc.call("scv/turn/start", map[string]any{"sessionId": sid, "prompt": "stream"}, nil)
	select {
	case <-bc.completed:
	case <-time.After(waitTimeout):
		bc.t.Fatalf("no turn/completed within %v", waitTimeout)
	}
}

func percentile(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

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

// fanReader records when each event of one session arrives and checks
// that none is missing, repeated or out of order.
type fanReader struct {
	sid     string
	mu      sync.Mutex
	next    uint64 // the seq expected next
	err     error
	arrived chan arrival
}

type arrival struct {
	seq uint64
	at  time.Time
}

func (r *fanReader) event(n client.Notification, at time.Time) {
	var p struct {
		SessionID string `json:"sessionId"`
		Seq       uint64 `json:"seq"`
	}
	json.Unmarshal(n.Params, &p)
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case n.Method == schema.EvSessionLagged && r.err == nil:
		r.err = fmt.Errorf("a reading connection lagged: %s", n.Params)
	case p.SessionID != r.sid || p.Seq == 0:
	case p.Seq != r.next && r.err == nil:
		r.err = fmt.Errorf("got seq %d, want %d", p.Seq, r.next)
	default:
		r.next = p.Seq + 1
		if n.Method == schema.EvSessionPaused {
			r.arrived <- arrival{p.Seq, at}
		}
	}
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

// awaitSessions polls scv/session/list (the daemon says nothing when a
// raw connection's requests or a turn nobody watches are done).
func awaitSessions(b *testing.B, bc *benchConn, cond func(map[string]session.Summary) bool) {
	b.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		var list struct {
			Sessions []session.Summary `json:"sessions"`
		}
		bc.call("scv/session/list", map[string]any{}, &list)
		byID := map[string]session.Summary{}
		for _, s := range list.Sessions {
			byID[s.SessionID] = s
		}
		if cond(byID) {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("the sessions did not reach the expected state within %v: %+v", waitTimeout, list.Sessions)
		}
		time.Sleep(socketPoll)
	}
}

func rawConnTB(b *testing.B, e *env) raw {
	b.Helper()
	c, err := bridge.Connect(e.socket)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return raw{c, wire.NewReader(c, 16<<20)}
}

// awaitLagged reads c until a scv/session/lagged for sid arrives.
func awaitLagged(b *testing.B, c raw, sid string) {
	b.Helper()
	c.SetReadDeadline(time.Now().Add(waitTimeout))
	for {
		body, err := c.readFrame()
		if err != nil {
			b.Fatalf("the stalled connection ended before a lagged report: %v", err)
		}
		if strings.Contains(string(body), schema.EvSessionLagged) && strings.Contains(string(body), sid) {
			return
		}
	}
}

// vmRSS reads a process's resident set size in bytes.
func vmRSS(b *testing.B, pid int) int64 {
	b.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				b.Fatalf("VmRSS line %q: %v", line, err)
			}
			return kb << 10
		}
	}
	b.Fatalf("no VmRSS in /proc/%d/status", pid)
	return 0
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
