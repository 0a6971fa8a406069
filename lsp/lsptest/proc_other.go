//go:build !linux

package lsptest

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// processPoll is how often WaitProcessGone looks where no pidfd exists.
const processPoll = 10 * time.Millisecond

// WaitProcessGone waits up to timeout for kill(pid, 0) to fail. Without
// pidfds there is nothing to wait on, so it polls; a zombie counts as alive.
func WaitProcessGone(pid int, timeout time.Duration) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(processPoll)
	defer tick.Stop()
	for unix.Kill(pid, 0) == nil {
		select {
		case <-tick.C:
		case <-deadline.C:
			return fmt.Errorf("process %d still running after %s", pid, timeout)
		}
	}
	return nil
}
