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
