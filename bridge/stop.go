package bridge

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"syscall"
	"time"
)

const (
	// StopTimeout is how long `scv stop` waits by default for the daemon to
	// finish: its shutdown and flush bounds plus a margin.
	StopTimeout = ShutdownTimeout + FlushTimeout + 5*time.Second
	// stopPoll is how often StopDaemon looks whether the daemon is gone.
	stopPoll = 50 * time.Millisecond
)

// StopDaemon asks the daemon on conn for its pid, sends it SIGTERM (its
// graceful shutdown) and waits up to timeout for it to finish. It refuses
// to signal when the socket is relayed (ssh -L) rather than served by the
// daemon itself. It closes conn and returns the daemon's pid.
func StopDaemon(conn *net.UnixConn, socket string, timeout time.Duration) (int, error) {
	peer, peerErr := PeerPID(conn)
	c := NewClient(conn, nil)
	ctx, cancel := context.WithTimeout(context.Background(), ControlTimeout)
	defer cancel()
	_, err := c.Initialize(ctx, "scv stop")
	var st DaemonStatus
	if err == nil {
		st, err = Status(ctx, c)
	}
	c.Close()
	switch {
	case err != nil:
		return 0, err
	case st.PID <= 1:
		return 0, fmt.Errorf("the daemon reported pid %d; not signalling it", st.PID)
	case peerErr != nil || peer != st.PID:
		// A forwarded socket (ssh -L): the pid is on another host, or the
		// local relay's pid is not the daemon's.
		return 0, fmt.Errorf("%s is relayed by process %d, not served by the daemon (pid %d) itself; run scv stop where the daemon runs",
			socket, peer, st.PID)
	}
	if err := syscall.Kill(st.PID, syscall.SIGTERM); err != nil {
		return 0, fmt.Errorf("signal the daemon (pid %d): %w", st.PID, err)
	}
	// Polling is the only way to watch another process's files disappear.
	deadline := time.Now().Add(timeout)
	for {
		_, statErr := os.Lstat(socket)
		if errors.Is(statErr, fs.ErrNotExist) || errors.Is(syscall.Kill(st.PID, 0), syscall.ESRCH) {
			return st.PID, nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("the daemon (pid %d) did not finish within %v", st.PID, timeout)
		}
		time.Sleep(stopPoll)
	}
}
