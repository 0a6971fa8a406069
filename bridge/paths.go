package bridge

import (
	"fmt"
	"os"
	"path/filepath"

	"scv/runtime/config"
)

const (
	// SocketEnv overrides the socket path when --socket is not given.
	SocketEnv = "SCV_SOCKET"
	// NoDaemonEnv set to "1" forces in-process serving, like --no-daemon.
	NoDaemonEnv = "SCV_NO_DAEMON"
	// SocketName is the socket's file name in $SCV_HOME.
	SocketName = "server.sock"
	// LockName is the lock file's name, beside the socket.
	LockName = "server.lock"
	// LogName is the log file of a daemon started by a bridge, in $SCV_HOME.
	LogName = "daemon.log"
	// MaxSocketPathBytes is the longest path a Unix socket can be bound to
	// (sun_path is 108 bytes including the terminating NUL on Linux).
	MaxSocketPathBytes = 107
)

// SocketPath resolves the daemon's socket: the --socket flag value when not
// empty, else $SCV_SOCKET, else $SCV_HOME/server.sock. The result is absolute
// so that a daemon started from another directory finds the same file.
func SocketPath(flagValue string) (string, error) {
	p, source := flagValue, "--socket"
	if p == "" {
		p, source = os.Getenv(SocketEnv), SocketEnv
	}
	if p == "" {
		home, err := config.Home()
		if err != nil {
			return "", fmt.Errorf("resolve the daemon socket: %w", err)
		}
		return filepath.Join(home, SocketName), nil
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("resolve %s=%q: %w", source, p, err)
	}
	return abs, nil
}

// LockPath is the lock file that guards the socket at socket.
func LockPath(socket string) string {
	return filepath.Join(filepath.Dir(socket), LockName)
}

// LogPath is where a daemon started by a bridge writes its output.
func LogPath() (string, error) {
	home, err := config.Home()
	if err != nil {
		return "", fmt.Errorf("resolve the daemon log: %w", err)
	}
	return filepath.Join(home, LogName), nil
}

func checkSocketPathLength(path string) error {
	if len(path) > MaxSocketPathBytes {
		return fmt.Errorf("socket path %s is %d bytes, over the %d-byte limit of Unix socket paths; choose a shorter --socket or %s",
			path, len(path), MaxSocketPathBytes, SocketEnv)
	}
	return nil
}
