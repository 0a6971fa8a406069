package tools

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// shellSweepBound is how long the cleanup after a shell call keeps killing
// and reaping the call's processes; only a process that cannot die (stuck
// in the kernel) or whose parent outside the call never reaps it lasts
// that long.
const shellSweepBound = 5 * time.Second

// waitNoReap blocks until process pid has exited but leaves it a zombie,
// so its pid (the process group id) cannot be reused while the rest of the
// group is killed. It reports false if it could not wait.
func waitNoReap(pid int) bool {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			return err == nil
		}
	}
}

var subreaperOnce sync.Once

// becomeSubreaper makes scv the child subreaper of everything it starts:
// a command's orphans are re-parented to scv instead of init, so the sweep
// can reap the ones it kills and none is left a zombie whatever this
// machine's init does.
func becomeSubreaper() {
	subreaperOnce.Do(func() { _ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) })
}

// proc is what the sweep reads of a process in /proc/<pid>/stat.
type proc struct {
	pid, ppid, pgrp int
	zombie          bool
}

// sweepCall kills every process that belongs to one shell call and reaps
// those re-parented to scv. A process belongs to the call if it is in the
// call's process group (pgid), if its environment holds marker (the
// SCV_SHELL_CALL variable every descendant inherits unless it clears its
// environment), or if its parent belongs. leader, the call's sh, is left
// to exec.Cmd.Wait. Other calls' processes carry other markers and groups,
// so concurrent calls never touch each other's.
func sweepCall(marker string, pgid, leader int) {
	self := os.Getpid()
	needle := []byte(marker + "\x00")
	killed := map[int]bool{}
	deadline := time.Now().Add(shellSweepBound)
	quiet := 0
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		procs := scanProcs()
		ours := map[int]bool{}
		isOurs := func(p proc) bool {
			return p.pgrp == pgid || ours[p.ppid] || !p.zombie && hasEnv(p.pid, needle)
		}
		// Parents may be listed after their children: repeat until the
		// set stops growing.
		for grew := true; grew; {
			grew = false
			for _, p := range procs {
				if p.pid != leader && p.pid != self && !ours[p.pid] && isOurs(p) {
					ours[p.pid], grew = true, true
				}
			}
		}
		pending := false
		for _, p := range procs {
			switch {
			case ours[p.pid] && !p.zombie:
				killChecked(p.pid, func() bool { q, ok := readProc(p.pid); return ok && isOurs(q) })
				killed[p.pid] = true
				pending = true
			case p.zombie && ours[p.pid], killed[p.pid]:
				// Dying or dead (an exiting process's environment reads
				// empty), but its pid stays taken until reaped: by us once
				// it is re-parented here, else by its own dying parent.
				if p.zombie && p.ppid == self {
					var ws unix.WaitStatus
					_, _ = unix.Wait4(p.pid, &ws, unix.WNOHANG, nil)
				}
				pending = true
			}
		}
		// A process caught mid-exec can read with an empty environment
		// once; only two quiet scans in a row end the sweep.
		if pending {
			quiet = 0
		} else if quiet++; quiet == 2 {
			return
		}
		if time.Now().After(deadline) {
			return
		}
		time.Sleep(pause) // bounded back-off while the kernel delivers SIGKILL
	}
}

// killChecked sends SIGKILL to pid if still() holds once a pidfd pins the
// process, so a pid reused meanwhile is not hit.
func killChecked(pid int, still func() bool) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		if errors.Is(err, unix.ENOSYS) && still() {
			_ = unix.Kill(pid, unix.SIGKILL)
		}
		return
	}
	defer unix.Close(fd)
	if still() {
		_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
	}
}

func hasEnv(pid int, needle []byte) bool {
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return false
	}
	return bytes.HasPrefix(env, needle) || bytes.Contains(env, append([]byte{0}, needle...))
}

// scanProcs lists the processes in /proc; those that vanish meanwhile are
// skipped.
func scanProcs() []proc {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	procs := make([]proc, 0, len(names))
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if p, ok := readProc(pid); ok {
			procs = append(procs, p)
		}
	}
	return procs
}

func readProc(pid int) (proc, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return proc{}, false
	}
	// The command name is in parentheses and may hold anything.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return proc{}, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 3 {
		return proc{}, false
	}
	ppid, err1 := strconv.Atoi(string(f[1]))
	pgrp, err2 := strconv.Atoi(string(f[2]))
	if err1 != nil || err2 != nil {
		return proc{}, false
	}
	return proc{pid: pid, ppid: ppid, pgrp: pgrp, zombie: f[0][0] == 'Z' || f[0][0] == 'X'}, true
}
