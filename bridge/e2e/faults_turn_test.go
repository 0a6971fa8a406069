package e2e

import (
	"go.lsp.dev/protocol"

	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"scv/bridge"
	"scv/internal/fakeopenai"
	"scv/runtime/session"
)

const (
	// floodDeltas is the size of the turns a window stops reading during.
	floodDeltas = 100_000
	// slowQueueBytes is the daemon's per-connection outbound budget in the
	// slow-window test (the default, made explicit). One flooding turn is
	// ~20 MB of frames: it fits, so a window watching one session never
	// loses an event however slowly it reads; two are ~40 MB, more than
	// the budget plus what a stalled window's pipes and bridge hold.
	slowQueueBytes = 32 << 20
	// floodTimeout bounds the waits of the flood test: 200 000 events
	// through race-instrumented processes take tens of seconds.
	floodTimeout = 3 * time.Minute
)

// A window that stops reading while two sessions it watches stream
// 100 000 deltas each loses events and gets one scv/session/lagged per
// session; the windows watching one session each receive every event in
// order, and the turns complete while the slow one still reads nothing.
func TestSlowWindowLagsWithoutSlowingTheSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.set("protocol", "outbound_queue_bytes", slowQueueBytes)
	e.useReplay(fmt.Sprintf(`{"text":"x","repeat":%d}`, floodDeltas), `{"usage":{"input_tokens":1,"output_tokens":1}}`)
	e.daemon()

	fast := e.bridge("fast window", "--daemon=auto")
	fast.initialize()
	other := e.direct("other window")
	other.initialize()
	type run struct {
		w      *window
		sid    string
		turnID string
		total  int
	}
	runs := []*run{{w: fast}, {w: other}}
	for _, r := range runs {
		r.sid = r.w.startSession(map[string]any{"cwd": e.work, "provider": "replay"}).SessionID
	}
	slow := e.bridge("slow window", "--daemon=auto")
	slow.initialize()
	for _, w := range []*window{fast, other, slow} {
		w.timeout = floodTimeout
	}
	for _, r := range runs {
		slow.attach(r.sid, 0)
	}
	slow.stopReading()

	for _, r := range runs {
		r.turnID = r.w.startTurn(r.sid, "flood").TurnID
	}
	for _, r := range runs {
		r.w.awaitNote("scv/turn/completed", func(n note) bool { return jsonField(n.Params, "turnId") == r.turnID })
		r.total = checkSeqs(t, r.w.name, r.w.all(), r.sid, 1)
		if got := r.w.count("scv/assistant/delta"); got != floodDeltas {
			t.Fatalf("%s received %d deltas, want %d", r.w.name, got, floodDeltas)
		}
		if r.w.count("scv/session/lagged") != 0 {
			t.Fatalf("%s was told it lagged", r.w.name)
		}
	}

	// The slow window reads again: what was queued for it, then the lagged
	// reports, though the sessions are quiet now.
	slow.resumeReading()
	slow.awaitCount("scv/session/lagged", 1)
	slow.queue(runs[0].sid) // answered after everything queued before it
	var missedAll int
	for _, r := range runs {
		var received, lagged, missed int
		var prev, pendingMissed uint64
		for _, n := range slow.all() {
			switch {
			case n.SessionID != r.sid:
			case n.Method == "scv/session/lagged":
				var p struct {
					Missed uint64 `json:"missed"`
				}
				json.Unmarshal(n.Params, &p)
				if p.Missed == 0 || pendingMissed != 0 {
					t.Fatalf("a lagged report %s follows another or misses nothing", n.Params)
				}
				lagged++
				missed += int(p.Missed)
				pendingMissed = p.Missed
			case n.Seq > 0:
				if n.Seq != prev+pendingMissed+1 {
					t.Fatalf("the slow window got seq %d after %d with %d reported missed: a hole, a repeat or a wrong count", n.Seq, prev, pendingMissed)
				}
				prev, pendingMissed = n.Seq, 0
				received++
			}
		}
		if lagged > 1 || (lagged == 1) != (missed > 0) || received+missed != r.total {
			t.Fatalf("session %s: the slow window received %d events and %d lagged reports missing %d; want at most one report and %d events in all",
				r.sid, received, lagged, missed, r.total)
		}
		t.Logf("session %s: the slow window received %d of %d events and was told it missed %d", r.sid, received, r.total, missed)
		missedAll += missed
	}
	if missedAll == 0 {
		t.Fatal("the slow window lost nothing; the test did not overflow it")
	}
}

// kill -9 of the daemon mid-turn: the bridge tells its editor and exits
// non-zero at once; the socket left behind is stale and a new daemon takes it.
func TestKilledDaemonEndsTheBridge(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := e.daemon()
	a := e.bridge("window", "--daemon=auto")
	a.initialize()
	sid := a.startSession(map[string]any{"cwd": e.work}).SessionID
	hold, _ := e.hold()
	e.openai.Enqueue(fakeopenai.Reply{Chunks: []string{"partial"}, Hold: hold})
	a.startTurn(sid, "hold on")
	a.awaitCount("scv/assistant/delta", 1)

	d.signal(t, syscall.SIGKILL)
	d.wait(t)
	msg := a.awaitNote("window/showMessage", nil)
	var p protocol.ShowMessageParams
	json.Unmarshal(msg.Params, &p)
	if p.Type != protocol.MessageTypeError || !strings.Contains(p.Message, "daemon") {
		t.Fatalf("the editor was told %s; want an error saying the daemon was lost", msg.Params)
	}
	// Sessions are stored: the editor is told it can attach again and
	// that the running turn is what was lost.
	if !strings.Contains(p.Message, "attach to them again") || !strings.Contains(p.Message, "interrupted") {
		t.Fatalf("the editor was told %q; want it told the sessions are stored and the running turn interrupted", p.Message)
	}
	if code := a.proc.wait(t); code == 0 {
		t.Fatal("the bridge exited 0 after its daemon was killed")
	}

	if !exists(e.socket) {
		t.Fatal("a killed daemon cannot have removed its socket; the test is wrong")
	}
	e.daemon()
	b := e.direct("after the restart")
	b.initialize()
	var list struct {
		Sessions []session.Summary `json:"sessions"`
	}
	b.mustCall("scv/session/list", map[string]any{}, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].SessionID != sid || list.Sessions[0].State != session.StateStored {
		t.Fatalf("a new daemon lists %+v, want the killed daemon's session, stored", list.Sessions)
	}
}

// The editor closing mid-turn ends its bridge (exit 0); the turn completes
// in the daemon and a later attach replays it.
func TestEditorClosingMidTurnKeepsTheTurn(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.daemon()
	a := e.bridge("window", "--daemon=auto")
	a.initialize()
	sid := a.startSession(map[string]any{"cwd": e.work}).SessionID
	hold, release := e.hold()
	e.openai.Enqueue(fakeopenai.Reply{Chunks: []string{"before the close"}, Hold: hold})
	turn := a.startTurn(sid, "keep going")
	a.awaitCount("scv/assistant/delta", 1)

	a.closeInput()
	if code := a.proc.wait(t); code != 0 {
		t.Fatalf("the bridge exited %d when its editor closed, want 0:\n%s", code, a.proc.output.String())
	}

	// Nothing watches the session now; an observer that attaches without a
	// replay waits for the turn to end.
	obs := e.direct("observer")
	obs.initialize()
	var list struct {
		Sessions []session.Summary `json:"sessions"`
	}
	obs.mustCall("scv/session/list", map[string]any{}, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].State != "running" || list.Sessions[0].Clients != 0 {
		t.Fatalf("after the window closed the daemon lists %+v, want the session running with no window", list.Sessions)
	}
	obs.mustCall("scv/session/attach", map[string]any{"sessionId": sid}, nil)
	release()
	obs.awaitNote("scv/turn/completed", func(n note) bool { return jsonField(n.Params, "turnId") == turn.TurnID })

	b := e.bridge("reopened window", "--daemon=auto")
	b.initialize()
	snap := b.attach(sid, 0)
	if snap.State != "idle" {
		t.Fatalf("the reopened window's snapshot says %q, want idle", snap.State)
	}
	b.await("the replay", func(notes []note, _ map[string]int) bool { return len(sessionEvents(notes, sid)) >= int(snap.Seq) })
	replay := sessionEvents(b.all(), sid)[:snap.Seq]
	if !slices.ContainsFunc(replay, func(n note) bool {
		return n.Method == "scv/turn/completed" && jsonField(n.Params, "turnId") == turn.TurnID
	}) {
		t.Fatalf("the replay does not hold the turn's completion:\n%s", b.dump())
	}
	checkSeqs(t, b.name, b.all(), sid, 1)
}

// SIGTERM with a turn running: every attached window gets turn/cancelled
// before its connection closes, nothing queued starts, the daemon exits 0
// and removes socket and lock.
func TestSIGTERMCancelsRunningTurns(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := e.daemon()
	a := e.bridge("window A", "--daemon=auto")
	a.initialize()
	sid := a.startSession(map[string]any{"cwd": e.work}).SessionID
	hold, _ := e.hold()
	e.openai.Enqueue(fakeopenai.Reply{Chunks: []string{"working"}, Hold: hold})
	turn := a.startTurn(sid, "hold on")
	a.awaitCount("scv/assistant/delta", 1)
	if q := a.startTurn(sid, "queued behind"); q.Status != "queued" {
		t.Fatalf("turn/start while running answered %+v, want queued", q)
	}
	b := e.direct("window B")
	b.initialize()
	b.attach(sid, 0)
	b.awaitCount("scv/assistant/delta", 1)

	d.signal(t, syscall.SIGTERM)
	if code := d.wait(t); code != 0 {
		t.Fatalf("the daemon exited %d on SIGTERM, want 0:\n%s", code, d.output.String())
	}
	for _, p := range []string{e.socket, bridge.LockPath(e.socket)} {
		if exists(p) {
			t.Errorf("%s still exists after the daemon exited", p)
		}
	}
	isCancel := func(n note) bool {
		return n.Method == "scv/turn/cancelled" && jsonField(n.Params, "turnId") == turn.TurnID
	}
	// B's connection ended; what it received before the end is all there is.
	b.awaitClosed()
	if !slices.ContainsFunc(b.all(), isCancel) {
		t.Fatalf("window B's connection closed without turn/cancelled:\n%s", b.dump())
	}
	a.awaitNote("window/showMessage", nil)
	notes := a.all()
	cancelled := slices.IndexFunc(notes, isCancel)
	lost := slices.IndexFunc(notes, func(n note) bool { return n.Method == "window/showMessage" })
	if cancelled < 0 || cancelled > lost {
		t.Fatalf("window A did not get turn/cancelled before hearing the daemon went away:\n%s", a.dump())
	}
	if code := a.proc.wait(t); code == 0 {
		t.Fatal("window A's bridge exited 0 after its daemon stopped")
	}
	for _, w := range []*window{a, b} {
		if n := w.count("scv/turn/started"); n != 1 {
			t.Errorf("%s saw %d turns start; the queued prompt must not start while the daemon shuts down:\n%s", w.name, n, w.dump())
		}
	}
}
