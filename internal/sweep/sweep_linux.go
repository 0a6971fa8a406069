package sweep

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"scv/internal/procfs"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Bound is how long Tree keeps killing and reaping the work's processes;
// only a process that cannot die (stuck in the kernel) or whose parent
// outside the work never reaps it lasts that long.
const Bound = 5 * time.Second

var subreaperOnce sync.Once

// BecomeSubreaper makes scv the child subreaper of everything it starts:
// the work's orphans are re-parented to scv instead of init, so Tree can
// reap the ones it kills and none is left a zombie whatever this machine's
// init does. Call it before starting the work.
func BecomeSubreaper() {
	subreaperOnce.Do(func() { _ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) })
}

// Tree kills every process that belongs to one piece of work and reaps
// those re-parented to scv. A process belongs to the work if it is in its
// process group (pgid), if its environment holds marker (from NewMarker,
// which every descendant inherits unless it clears its environment), or
// if its parent belongs. leader, the work's first process, is left to
// exec.Cmd.Wait. Other work's processes carry other markers and groups,
// so concurrent sweeps never touch each other's.
func Tree(marker string, pgid, leader int) {
	self := os.Getpid()
	needle := envNeedle(marker)
	killed := map[int]bool{}
	deadline := time.Now().Add(Bound)
	quiet := 0
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		procs := procfs.Scan()
		ours := map[int]bool{}
		// ourNow reads the process's environment; the set below is built
		// from one read per process and scan (reading every environ file
		// on each pass of the loop was most of a sweep's cost), and a
		// kill checks afresh, once a pidfd pins the process.
		ourNow := func(p procfs.Proc) bool {
			return p.Pgrp == pgid || ours[p.PPID] || !p.Zombie && hasEnv(p.PID, needle)
		}
		marked := map[int]bool{}
		isOurs := func(p procfs.Proc) bool {
			if p.Pgrp == pgid || ours[p.PPID] {
				return true
			}
			m, read := marked[p.PID]
			if !read {
				m = !p.Zombie && hasEnv(p.PID, needle)
				marked[p.PID] = m
			}
			return m
		}
		// Parents may be listed after their children: repeat until the
		// set stops growing.
		for grew := true; grew; {
			grew = false
			for _, p := range procs {
				if p.PID != leader && p.PID != self && !ours[p.PID] && isOurs(p) {
					ours[p.PID], grew = true, true
				}
			}
		}
		pending := false
		for _, p := range procs {
			switch {
			case ours[p.PID] && !p.Zombie:
				killChecked(p.PID, func() bool { q, ok := procfs.Read(p.PID); return ok && ourNow(q) })
				killed[p.PID] = true
				pending = true
			case p.Zombie && ours[p.PID], killed[p.PID]:
				// Dying or dead (an exiting process's environment reads
				// empty), but its pid stays taken until reaped: by us once
				// it is re-parented here, else by its own dying parent.
				if p.Zombie && p.PPID == self {
					var ws unix.WaitStatus
					_, _ = unix.Wait4(p.PID, &ws, unix.WNOHANG, nil)
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

// needle is a marker as it stands in an environ file: NUL-terminated, and
// preceded by a NUL unless it is the first variable.
type needle struct{ first, later []byte }

func envNeedle(marker string) needle {
	return needle{first: []byte(marker + "\x00"), later: []byte("\x00" + marker + "\x00")}
}

func hasEnv(pid int, n needle) bool {
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return false
	}
	return bytes.HasPrefix(env, n.first) || bytes.Contains(env, n.later)
}
