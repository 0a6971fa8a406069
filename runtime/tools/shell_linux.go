package tools

import (
	"errors"

	"golang.org/x/sys/unix"
)

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
