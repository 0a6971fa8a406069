package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
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

// TestShellSetsidChildDoesNotOutlive: a job that left the command's
// process group and session (setsid) is still killed, and reaped, when the
// call returns, times out or is cancelled.
func TestShellSetsidChildDoesNotOutlive(t *testing.T) {
	ws := newTestWorkspace(t)
	limits := testLimits()
	limits.ShellTimeout = 2 * time.Second
	tool := toolNamed(t, ws, limits, "shell")
	pidFile := filepath.Join(ws.Root(), "escaped")
	// The inner shell writes the job's pid after setsid, so once the file
	// exists the job has left the group and the session.
	escape := "setsid sh -c 'sleep 300 & echo $! > escaped.tmp; mv escaped.tmp escaped'; "
	for _, tc := range []struct {
		name, command, suffix string
		cancel                bool
	}{
		{"returns", escape + "echo done", "done\n[exit code: 0]", false},
		{"times out", escape + "sleep 100", "[timed out after 2s; process group killed]", false},
		{"cancelled", escape + "sleep 100", "[cancelled; process group killed]", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(pidFile)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel {
				go func() {
					// Cancel once the job has escaped; the test's end stops this.
					for ctx.Err() == nil {
						if _, err := os.Stat(pidFile); err == nil {
							cancel()
						}
						time.Sleep(10 * time.Millisecond) // polling interval
					}
				}()
			}
			res := runBounded(t, ctx, tool, tc.command)
			if !strings.HasSuffix(res.Output, tc.suffix) {
				t.Fatalf("got %+v", res)
			}
			pid := readPid(t, pidFile)
			t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) }) // if the test failed
			waitFor(t, fmt.Sprintf("escaped process %d to be gone", pid), func() bool {
				_, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
				return errors.Is(err, fs.ErrNotExist)
			})
		})
	}
}

// TestShellCallsKeepEachOthersProcesses: a call's cleanup kills only what
// that call started, not a concurrent call's jobs.
func TestShellCallsKeepEachOthersProcesses(t *testing.T) {
	ws := newTestWorkspace(t)
	tool := toolNamed(t, ws, testLimits(), "shell")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	long := make(chan Result, 1)
	go func() {
		long <- tool.Run(ctx, argsJSON(t, map[string]any{"command": "setsid sleep 300 & echo $! > long.tmp; mv long.tmp long.pid; wait"}))
	}()
	pid := readPid(t, filepath.Join(ws.Root(), "long.pid"))
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) }) // if the test failed
	res := runBounded(t, context.Background(), tool, "setsid sleep 300 & echo done")
	if res.Output != "done\n[exit code: 0]" {
		t.Fatalf("got %+v", res)
	}
	if !running(pid) {
		t.Fatalf("the other call's job %d was killed", pid)
	}
	cancel()
	select {
	case <-long:
	case <-time.After(liveBound):
		t.Fatal("Run did not return after cancel")
	}
	waitFor(t, "the long call's job to be gone", func() bool {
		_, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
		return errors.Is(err, fs.ErrNotExist)
	})
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

// running reports whether pid is a live process (not a zombie).
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
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
