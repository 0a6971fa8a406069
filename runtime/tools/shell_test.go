package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// liveBound bounds every wait on a process condition; reaching it fails
// the test rather than hanging it.
const liveBound = 20 * time.Second

func TestShell(t *testing.T) {
	ws := newTestWorkspace(t)
	t.Setenv("SCV_TEST_API_KEY", "sk-should-not-leak")
	t.Setenv("SCV_TEST_PLAIN", "visible")
	tool := toolNamed(t, ws, testLimits(), "shell")
	tests := []struct {
		name, command string
		ok            bool
		want          string
	}{
		{"stdout and stderr", "echo out; echo err >&2", true, "out\nerr\n[exit code: 0]"},
		{"exit code", "echo partial; exit 3", false, "partial\n[exit code: 3]"},
		{"no output", "true", true, "[exit code: 0]"},
		{"no final newline", "printf abc", true, "abc\n[exit code: 0]"},
		{"runs in the workspace root", "pwd", true, ws.Root() + "\n[exit code: 0]"},
		{"stdin is empty", "cat; echo after", true, "after\n[exit code: 0]"},
		{"killed by a signal", "kill -TERM $$", false, "[killed by signal: terminated]"},
		{"secrets scrubbed", `echo "key=$SCV_TEST_API_KEY plain=$SCV_TEST_PLAIN"`, true, "key= plain=visible\n[exit code: 0]"},
		{"invalid UTF-8", `printf 'a\377\376b\n'`, true, "a\uFFFDb\n[exit code: 0]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, tool, map[string]any{"command": tc.command})
			if res.Success != tc.ok || res.Output != tc.want || res.Truncated {
				t.Fatalf("got %+v, want success=%v output %q", res, tc.ok, tc.want)
			}
		})
	}
	if s := tool.Summary(argsJSON(t, map[string]any{"command": "go test ./..."})); s != "$ go test ./..." {
		t.Errorf("Summary = %q", s)
	}
}

func TestShellOutputCap(t *testing.T) {
	ws := newTestWorkspace(t)
	limits := testLimits()
	tool := toolNamed(t, ws, limits, "shell")
	// 10 MB through a 2 KiB cap: the command must still run to the end
	// (the pipe keeps being drained) and report its own exit code.
	res := run(t, tool, map[string]any{"command": "head -c 10000000 /dev/zero | tr '\\000' a; echo; echo tail >&2; exit 7"})
	if res.Success || !res.Truncated {
		t.Fatalf("got success=%v truncated=%v", res.Success, res.Truncated)
	}
	want := strings.Repeat("a", limits.MaxOutputBytes) + "\n[output truncated at 2048 bytes]\n[exit code: 7]"
	if res.Output != want {
		t.Fatalf("output ends %q", res.Output[max(0, len(res.Output)-80):])
	}

	// A multi-byte rune cut by the cap is dropped, not shown half.
	res = run(t, tool, map[string]any{"command": "printf 'a'; i=0; while [ $i -lt 1100 ]; do printf 'é'; i=$((i+1)); done"})
	if !res.Truncated || strings.Contains(res.Output, "\uFFFD") {
		t.Fatalf("cut rune shown: %q", res.Output[max(0, len(res.Output)-80):])
	}
}

func TestShellTimeoutKillsGroup(t *testing.T) {
	ws := newTestWorkspace(t)
	limits := testLimits()
	limits.ShellTimeout = 300 * time.Millisecond
	tool := toolNamed(t, ws, limits, "shell")
	res := runBounded(t, context.Background(), tool, "echo $$ > pgid; echo started; sleep 100 & sleep 100")
	if res.Success || !strings.HasPrefix(res.Output, "started\n") || !strings.HasSuffix(res.Output, "[timed out after 300ms; process group killed]") {
		t.Fatalf("got %+v", res)
	}
	waitGroupGone(t, readPid(t, filepath.Join(ws.Root(), "pgid")))
}

func TestShellCancelKillsGroup(t *testing.T) {
	ws := newTestWorkspace(t)
	tool := toolNamed(t, ws, testLimits(), "shell")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pgidFile := filepath.Join(ws.Root(), "pgid")
	done := make(chan Result, 1)
	go func() {
		done <- tool.Run(ctx, argsJSON(t, map[string]any{"command": "sleep 100 & sleep 100 & echo $$ > pgid.tmp && mv pgid.tmp pgid; wait"}))
	}()
	waitFor(t, "the command to start", func() bool {
		_, err := os.Stat(pgidFile)
		return err == nil
	})
	pgid := readPid(t, pgidFile)
	if live := liveInGroup(t, pgid); len(live) < 3 {
		t.Fatalf("expected sh and two sleeps in group %d, found %v", pgid, live)
	}
	cancel()
	select {
	case res := <-done:
		checkResult(t, res)
		if res.Success || res.Output != "[cancelled; process group killed]" {
			t.Fatalf("got %+v", res)
		}
	case <-time.After(liveBound):
		t.Fatal("Run did not return after cancel")
	}
	waitGroupGone(t, pgid)
}

// TestShellBackgroundDoesNotOutlive: a command that leaves a background
// job holding the output pipe returns when the shell exits, and the job
// is killed with the rest of the group.
func TestShellBackgroundDoesNotOutlive(t *testing.T) {
	ws := newTestWorkspace(t)
	tool := toolNamed(t, ws, testLimits(), "shell")
	res := runBounded(t, context.Background(), tool, "echo $$ > pgid; sleep 100 & echo started")
	if !res.Success || res.Output != "started\n[exit code: 0]" {
		t.Fatalf("got %+v", res)
	}
	waitGroupGone(t, readPid(t, filepath.Join(ws.Root(), "pgid")))
}

// TestShellEscapedGrandchild: a grandchild that left the group (setsid)
// cannot be killed with it and keeps the pipe open; Run still returns,
// after the bounded drain.
func TestShellEscapedGrandchild(t *testing.T) {
	ws := newTestWorkspace(t)
	limits := testLimits()
	limits.ShellTimeout = 300 * time.Millisecond
	tool := toolNamed(t, ws, limits, "shell")
	pidFile := filepath.Join(ws.Root(), "escaped")
	t.Cleanup(func() {
		if b, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL) // the test started it
			}
		}
	})
	// The job writes its pid file after setsid, so once the file exists it
	// has left the group; the command waits for that before going on.
	escape := "setsid sh -c 'echo $$ > escaped.tmp; mv escaped.tmp escaped; exec sleep 100' & " +
		"while [ ! -f escaped ]; do sleep 0.01; done; "
	for _, tc := range []struct{ command, suffix string }{
		{escape + "echo done", "done\n[exit code: 0]"},
		{escape + "sleep 100", "[timed out after 300ms; process group killed]"},
	} {
		os.Remove(pidFile)
		res := runBounded(t, context.Background(), tool, tc.command)
		if !strings.HasSuffix(res.Output, tc.suffix) {
			t.Fatalf("%s: got %+v", tc.command, res)
		}
		if !strings.Contains(tc.suffix, "timed out") {
			// Only then is the escape certain to have happened.
			pid := readPid(t, pidFile)
			if err := syscall.Kill(pid, 0); err != nil {
				t.Fatalf("escaped process %d is gone (%v): the test did not hold the pipe", pid, err)
			}
			_ = syscall.Kill(pid, syscall.SIGKILL) // the test started it
		}
	}
}

// runBounded runs a shell command, failing the test if Run does not return.
func runBounded(t *testing.T, ctx context.Context, tool Tool, command string) Result {
	t.Helper()
	done := make(chan Result, 1)
	args := argsJSON(t, map[string]any{"command": command})
	go func() { done <- tool.Run(ctx, args) }()
	select {
	case res := <-done:
		checkResult(t, res)
		return res
	case <-time.After(liveBound):
		t.Fatalf("Run(%q) did not return", command)
		return Result{}
	}
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	var pid int
	waitFor(t, "pid file "+path, func() bool {
		b, err := os.ReadFile(path)
		if err != nil {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil
	})
	return pid
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(liveBound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond) // polling interval, not synchronisation
	}
}

func waitGroupGone(t *testing.T, pgid int) {
	t.Helper()
	waitFor(t, "process group to die", func() bool { return len(liveInGroup(t, pgid)) == 0 })
}

// liveInGroup lists the processes of a group that are still running.
// Zombies do not count: whether they are reaped depends on this machine's
// init, not on the tool.
func liveInGroup(t *testing.T, pgid int) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	var live []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // exited meanwhile
		}
		// The command name is in parentheses and may hold spaces.
		fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(fields) < 3 {
			continue
		}
		state, pgrp := fields[0], fields[2]
		if pgrp == strconv.Itoa(pgid) && state != "Z" && state != "X" {
			live = append(live, pid)
		}
	}
	return live
}

func TestShellResultJSON(t *testing.T) {
	ws := newTestWorkspace(t)
	res := run(t, toolNamed(t, ws, testLimits(), "shell"), map[string]any{"command": `printf '\300\001\377'`})
	b, err := json.Marshal(res)
	if err != nil || !json.Valid(b) {
		t.Fatalf("marshal: %v %s", err, b)
	}
}
