package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"scv/bridge"
	"scv/internal/fakeopenai"
	"scv/runtime/session"
)

// `scv lsp --daemon=required` starts the daemon when none runs; scv status
// shows it and its session; scv stop ends it and removes socket and lock.
func TestRequiredStartsDaemonStatusAndStop(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if exists(e.socket) {
		t.Fatalf("%s exists before any daemon ran", e.socket)
	}
	a := e.bridge("window", "--daemon=required")
	if !a.initialize().Capabilities.Experimental.SCV.Daemon {
		t.Fatal("initialize through a started daemon did not report capabilities.experimental.scv.daemon = true")
	}
	lockPath := bridge.LockPath(e.socket)
	pid := lockPID(t, lockPath)
	// The daemon is the bridge's detached child, not ours: if the test
	// fails before scv stop, end it by its pid.
	t.Cleanup(func() {
		if exists(e.socket) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	logData, err := os.ReadFile(filepath.Join(e.home, bridge.LogName))
	if err != nil {
		t.Fatalf("the started daemon's log: %v", err)
	}
	if !strings.Contains(string(logData), "scv daemon listening") {
		t.Fatalf("daemon.log does not say the daemon listens:\n%s", logData)
	}

	sid := a.startSession(map[string]any{"cwd": e.work}).SessionID
	hold, _ := e.hold()
	e.openai.Enqueue(fakeopenai.Reply{Chunks: []string{"thinking"}, Hold: hold})
	a.startTurn(sid, "hold on")
	a.awaitCount("scv/assistant/delta", 1)
	if q := a.startTurn(sid, "later"); q.Status != "queued" {
		t.Fatalf("turn/start while running answered %+v, want queued", q)
	}

	stdout, stderr, code := e.cli("status", "--json")
	if code != 0 {
		t.Fatalf("scv status --json exited %d: %s%s", code, stdout, stderr)
	}
	var st struct {
		Daemon   bridge.DaemonStatus `json:"daemon"`
		Sessions []session.Summary   `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(stdout), &st); err != nil {
		t.Fatalf("scv status --json: %v\n%s", err, stdout)
	}
	if st.Daemon.PID != pid || st.Daemon.Mode != "daemon" || st.Daemon.Socket != e.socket || st.Daemon.Clients != 2 {
		t.Fatalf("scv status reports %+v, want pid %d, mode daemon, socket %s, 2 connections (the window and the query)", st.Daemon, pid, e.socket)
	}
	if len(st.Sessions) != 1 || st.Sessions[0].SessionID != sid || st.Sessions[0].State != "running" || st.Sessions[0].Queued != 1 || st.Sessions[0].Clients != 1 {
		t.Fatalf("scv status lists %+v, want session %s running with 1 queued and 1 window", st.Sessions, sid)
	}
	stdout, stderr, code = e.cli("status")
	for _, want := range []string{"scv daemon running", strconv.Itoa(pid), e.socket, sid, "running"} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Fatalf("scv status exited %d without %q:\n%s%s", code, want, stdout, stderr)
		}
	}

	stdout, stderr, code = e.cli("stop")
	if code != 0 || !strings.Contains(stdout, "stopped") {
		t.Fatalf("scv stop exited %d:\n%s%s", code, stdout, stderr)
	}
	for _, p := range []string{e.socket, lockPath} {
		if exists(p) {
			t.Errorf("%s still exists after scv stop", p)
		}
	}
	// The window saw its turn cancelled, then heard that the daemon went.
	a.awaitNote("scv/turn/cancelled", nil)
	a.awaitNote("window/showMessage", nil)
	if code := a.proc.wait(t); code == 0 {
		t.Fatalf("the bridge exited 0 after losing its daemon; want non-zero")
	}
	stdout, _, code = e.cli("status")
	if code != 1 || !strings.Contains(stdout, "no daemon running") {
		t.Fatalf("scv status after stop exited %d: %s", code, stdout)
	}
}

// lockPID reads the pid a daemon wrote into its lock file.
func lockPID(t testing.TB, lockPath string) int {
	t.Helper()
	data, err := os.ReadFile(lockPath)
	if err != nil {
		t.Fatalf("read the daemon lock: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 1 {
		t.Fatalf("the daemon lock holds %q, not a pid (%v)", data, err)
	}
	return pid
}

// The README promises the daemon's socket lives in a directory only its
// user can enter: an existing $SCV_HOME left group- and world-readable
// (mode 0755) is tightened to 0700 when the daemon starts.
func TestDaemonTightensLooseHome(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if err := os.Chmod(e.home, 0o755); err != nil {
		t.Fatal(err)
	}
	e.daemon()
	info, err := os.Stat(e.home)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o700 {
		t.Fatalf("$SCV_HOME is mode %04o after the daemon started, want 0700", perm)
	}
}
