package procfs

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// Scan lists the processes in /proc; those that vanish meanwhile are
// skipped.
func Scan() []Proc {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	procs := make([]Proc, 0, len(names))
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if p, ok := Read(pid); ok {
			procs = append(procs, p)
		}
	}
	return procs
}

// Read reads one process; false when it is gone or unreadable.
func Read(pid int) (Proc, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return Proc{}, false
	}
	// The command name is in parentheses and may hold anything.
	open, i := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || i < open {
		return Proc{}, false
	}
	// f[0] is the stat file's third field (the state); the start time
	// is its 22nd.
	f := bytes.Fields(b[i+1:])
	if len(f) < 20 {
		return Proc{}, false
	}
	ppid, err1 := strconv.Atoi(string(f[1]))
	pgrp, err2 := strconv.Atoi(string(f[2]))
	start, err3 := strconv.ParseUint(string(f[19]), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return Proc{}, false
	}
	return Proc{PID: pid, PPID: ppid, Pgrp: pgrp, Comm: string(b[open+1 : i]), Zombie: f[0][0] == 'Z' || f[0][0] == 'X', Start: start}, true
}

// WaitNoReap blocks until process pid has exited but leaves it a zombie,
// so its pid (the process group id) cannot be reused while the rest of the
// group is killed. It reports false if it could not wait.
func WaitNoReap(pid int) bool {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			return err == nil
		}
	}
}
