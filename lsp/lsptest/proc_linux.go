package lsptest

import (
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// WaitProcessGone waits up to timeout for process pid to be gone: exited
// (a zombie nobody has reaped yet counts as gone) or already reaped. It
// waits on a pidfd, which becomes readable when the process exits, so no
// polling clock is involved.
func WaitProcessGone(pid int, timeout time.Duration) error {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("pidfd_open %d: %w", pid, err)
	}
	defer unix.Close(fd)
	deadline := time.Now().Add(timeout)
	for {
		left := time.Until(deadline)
		if left < 0 {
			return fmt.Errorf("process %d still running after %s", pid, timeout)
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(left.Milliseconds())+1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("poll pidfd of %d: %w", pid, err)
		}
		if n > 0 {
			return nil
		}
	}
}
