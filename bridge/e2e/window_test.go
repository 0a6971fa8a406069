package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"scv/bridge"
	"scv/lsp"
	"scv/lsp/client"
	"scv/runtime/session"
)

// note is one notification a window received.
type note struct {
	Method    string
	Params    json.RawMessage
	SessionID string
	Seq       uint64
}

// window is an editor window: a JSON-RPC client on a real `scv lsp`
// bridge's stdio, or directly on the daemon socket. It records every
// notification; tests wait on what it recorded.
type window struct {
	t     testing.TB
	name  string
	c     *client.Client
	proc  *proc    // the bridge; nil on a direct connection
	stdin *os.File // the editor's end of the bridge's stdin
	// timeout bounds each wait of this window; waitTimeout unless a test
	// moves far more data than usual.
	timeout time.Duration

	stallMu sync.Mutex
	stall   chan struct{} // while non-nil, the read goroutine waits on it

	mu      sync.Mutex
	notes   []note
	counts  map[string]int
	changed chan struct{} // closed and replaced on every notification
}

func newWindow(t testing.TB, name string) *window {
	return &window{t: t, name: name, timeout: waitTimeout, counts: map[string]int{}, changed: make(chan struct{})}
}

// pipeConn joins the bridge's stdout (read) and stdin (write).
type pipeConn struct{ r, w *os.File }

func (c pipeConn) Read(p []byte) (int, error)  { return c.r.Read(p) }
func (c pipeConn) Write(p []byte) (int, error) { return c.w.Write(p) }
func (c pipeConn) Close() error {
	c.w.Close()
	return c.r.Close()
}

// bridge starts `scv lsp args...` as an editor would and returns the
// window on its stdio. When the test ends the editor closes the bridge's
// stdin and the bridge must exit.
func (e *env) bridge(name string, args ...string) *window {
	e.t.Helper()
	w := newWindow(e.t, name)
	var rwc pipeConn
	rwc, w.proc = e.bridgeProc(args...)
	w.stdin = rwc.w
	w.c = client.New(rwc, w.record)
	e.t.Cleanup(w.close)
	return w
}

// bridgeProc starts `scv lsp args...` and returns the editor's end of its
// stdio: reads take its stdout, writes go to its stdin.
func (e *env) bridgeProc(args ...string) (pipeConn, *proc) {
	e.t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		e.t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		e.t.Fatal(err)
	}
	p := e.start(inR, outW, append([]string{"lsp"}, args...)...)
	// The child holds its own copies; ours would hide its exit (no EOF).
	inR.Close()
	outW.Close()
	return pipeConn{r: outR, w: inW}, p
}

// direct connects a window straight to the daemon socket, as scv status
// and scv attach do.
func (e *env) direct(name string) *window {
	e.t.Helper()
	conn, err := bridge.Connect(e.socket)
	if err != nil {
		e.t.Fatalf("%s: %v", name, err)
	}
	w := newWindow(e.t, name)
	w.c = client.New(conn, w.record)
	e.t.Cleanup(w.close)
	return w
}

func (w *window) record(n client.Notification) {
	w.stallMu.Lock()
	stall := w.stall
	w.stallMu.Unlock()
	if stall != nil {
		<-stall
	}
	var p struct {
		SessionID string `json:"sessionId"`
		Seq       uint64 `json:"seq"`
	}
	json.Unmarshal(n.Params, &p)
	w.mu.Lock()
	w.notes = append(w.notes, note{Method: n.Method, Params: n.Params, SessionID: p.SessionID, Seq: p.Seq})
	w.counts[n.Method]++
	close(w.changed)
	w.changed = make(chan struct{})
	w.mu.Unlock()
}

// stopReading makes the window stop reading at its next notification, like
// an editor that hangs; resumeReading lets it go on.
func (w *window) stopReading() {
	w.stallMu.Lock()
	defer w.stallMu.Unlock()
	if w.stall == nil {
		w.stall = make(chan struct{})
	}
}

func (w *window) resumeReading() {
	w.stallMu.Lock()
	defer w.stallMu.Unlock()
	if w.stall != nil {
		close(w.stall)
		w.stall = nil
	}
}

// close is the editor going away: it closes the bridge's stdin and stdout
// (or the socket) and waits, bounded, for the bridge to exit.
func (w *window) close() {
	w.resumeReading()
	w.c.Close()
	if w.proc != nil {
		select {
		case <-w.proc.done:
		case <-time.After(waitTimeout):
			w.t.Errorf("%s: the bridge did not exit within %v after its editor closed", w.name, waitTimeout)
			w.proc.stop()
		}
	}
}

// closeInput closes only the bridge's stdin: the editor window closing.
func (w *window) closeInput() {
	w.t.Helper()
	if err := w.stdin.Close(); err != nil {
		w.t.Fatalf("%s: close stdin: %v", w.name, err)
	}
}

func (w *window) call(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), w.timeout)
	defer cancel()
	return w.c.Call(ctx, method, params, result)
}

func (w *window) mustCall(method string, params, result any) {
	w.t.Helper()
	if err := w.call(method, params, result); err != nil {
		w.t.Fatalf("%s: %s: %v%s", w.name, method, err, w.procOutput())
	}
}

func (w *window) procOutput() string {
	if w.proc == nil {
		return ""
	}
	return "\nbridge output:\n" + w.proc.output.String()
}

func (w *window) initialize() lsp.InitializeResult {
	w.t.Helper()
	var res lsp.InitializeResult
	w.mustCall("initialize", map[string]any{
		"processId":             os.Getpid(),
		"capabilities":          map[string]any{},
		"initializationOptions": map[string]any{"scv": map[string]any{"protocolVersion": 1}},
	}, &res)
	if err := w.c.Notify("initialized", map[string]any{}); err != nil {
		w.t.Fatalf("%s: initialized: %v", w.name, err)
	}
	return res
}

func (w *window) startSession(params map[string]any) session.Snapshot {
	w.t.Helper()
	var snap session.Snapshot
	w.mustCall("scv/session/start", params, &snap)
	return snap
}

func (w *window) startTurn(sessionID, prompt string) session.TurnStart {
	w.t.Helper()
	var ts session.TurnStart
	w.mustCall("scv/turn/start", map[string]any{"sessionId": sessionID, "prompt": prompt}, &ts)
	return ts
}

func (w *window) attach(sessionID string, afterSeq uint64) session.Snapshot {
	w.t.Helper()
	var snap session.Snapshot
	w.mustCall("scv/session/attach", map[string]any{"sessionId": sessionID, "afterSeq": afterSeq}, &snap)
	return snap
}

func (w *window) queue(sessionID string) session.QueueState {
	w.t.Helper()
	var q session.QueueState
	w.mustCall("scv/queue/list", map[string]any{"sessionId": sessionID}, &q)
	return q
}

// await waits until cond, called under the window's lock with what it
// has recorded, holds.
func (w *window) await(what string, cond func(notes []note, counts map[string]int) bool) {
	w.t.Helper()
	deadline := time.NewTimer(w.timeout)
	defer deadline.Stop()
	for {
		w.mu.Lock()
		ok := cond(w.notes, w.counts)
		changed := w.changed
		w.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-changed:
		case <-w.c.Done():
			w.mu.Lock()
			ok := cond(w.notes, w.counts)
			w.mu.Unlock()
			if !ok {
				w.t.Fatalf("%s: connection ended (%v) before %s\n%s%s", w.name, w.c.Err(), what, w.dump(), w.procOutput())
			}
			return
		case <-deadline.C:
			w.t.Fatalf("%s: no %s within %v\n%s%s", w.name, what, w.timeout, w.dump(), w.procOutput())
		}
	}
}

// awaitClosed waits for the server side to end the connection.
func (w *window) awaitClosed() {
	w.t.Helper()
	select {
	case <-w.c.Done():
	case <-time.After(waitTimeout):
		w.t.Fatalf("%s: the connection was not closed within %v\n%s", w.name, waitTimeout, w.dump())
	}
}

// awaitCount waits for n notifications of method.
func (w *window) awaitCount(method string, n int) {
	w.t.Helper()
	w.await(fmt.Sprintf("%d × %s", n, method), func(_ []note, counts map[string]int) bool { return counts[method] >= n })
}

// awaitNote waits for a notification of method that pred accepts (nil:
// any) and returns the first one.
func (w *window) awaitNote(method string, pred func(note) bool) note {
	w.t.Helper()
	var found note
	w.await(method, func(notes []note, counts map[string]int) bool {
		if counts[method] == 0 {
			return false
		}
		for _, n := range notes {
			if n.Method == method && (pred == nil || pred(n)) {
				found = n
				return true
			}
		}
		return false
	})
	return found
}

// all returns a copy of what the window recorded.
func (w *window) all() []note {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]note(nil), w.notes...)
}

func (w *window) count(method string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.counts[method]
}

// dump lists the last notifications for a failure message.
func (w *window) dump() string {
	notes := w.all()
	var b strings.Builder
	fmt.Fprintf(&b, "%d notifications", len(notes))
	if len(notes) > 40 {
		fmt.Fprintf(&b, " (the last 40)")
		notes = notes[len(notes)-40:]
	}
	b.WriteString(":\n")
	for _, n := range notes {
		params := string(n.Params)
		if len(params) > 200 {
			params = params[:200] + "…"
		}
		fmt.Fprintf(&b, "  %s %s\n", n.Method, params)
	}
	return b.String()
}

// sessionEvents returns the numbered events of one session, in arrival order.
func sessionEvents(notes []note, sessionID string) []note {
	var out []note
	for _, n := range notes {
		if n.SessionID == sessionID && n.Seq > 0 {
			out = append(out, n)
		}
	}
	return out
}

// checkSeqs fails unless the session's events arrived numbered first,
// first+1, … with no hole and no repeat; it returns how many there were.
func checkSeqs(t testing.TB, who string, notes []note, sessionID string, first uint64) int {
	t.Helper()
	evs := sessionEvents(notes, sessionID)
	for i, n := range evs {
		if want := first + uint64(i); n.Seq != want {
			t.Fatalf("%s: event %d of session %s is %s with seq %d, want seq %d (a hole or a repeat)", who, i, sessionID, n.Method, n.Seq, want)
		}
	}
	return len(evs)
}
