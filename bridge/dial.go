package bridge

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// Mode is the value of `scv lsp --daemon`.
type Mode string

const (
	// ModeAuto forwards to a daemon that answers and serves in-process otherwise.
	ModeAuto Mode = "auto"
	// ModeNever always serves in-process.
	ModeNever Mode = "never"
	// ModeRequired forwards, starting a daemon when none answers.
	ModeRequired Mode = "required"
)

const (
	// ConnectTimeout bounds one connect to the daemon socket.
	ConnectTimeout = 2 * time.Second
	// StartTimeout bounds the wait for a daemon started by the bridge.
	StartTimeout = 10 * time.Second
	// Backoff of the polls while a started daemon comes up.
	minStartPoll = 10 * time.Millisecond
	maxStartPoll = 250 * time.Millisecond
)

// ResolveMode combines --daemon, --no-daemon and $SCV_NO_DAEMON: the latter
// two force ModeNever. An empty flag means ModeAuto.
func ResolveMode(flagValue string, noDaemon bool) (Mode, error) {
	m := Mode(flagValue)
	switch m {
	case "":
		m = ModeAuto
	case ModeAuto, ModeNever, ModeRequired:
	default:
		return "", fmt.Errorf("--daemon=%q: want auto, never or required", flagValue)
	}
	if noDaemon || os.Getenv(NoDaemonEnv) == "1" {
		return ModeNever, nil
	}
	return m, nil
}

// NoDaemon reports whether err, from Connect, means that no daemon is
// running (no socket, or nobody listening on it), as opposed to one that
// cannot be used.
func NoDaemon(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED)
}

// Connect dials the daemon socket and checks that the process answering is
// the current user's (directly, or an ssh forwarding it).
func Connect(socket string) (*net.UnixConn, error) {
	if err := checkSocketPathLength(socket); err != nil {
		return nil, err
	}
	d := net.Dialer{Timeout: ConnectTimeout}
	c, err := d.Dial("unix", socket)
	if err != nil {
		return nil, fmt.Errorf("connect to the scv daemon at %s: %w", socket, err)
	}
	uc := c.(*net.UnixConn)
	uid, err := peerUID(uc)
	if err != nil {
		uc.Close()
		return nil, fmt.Errorf("connect to the scv daemon at %s: %w", socket, err)
	}
	if uid != os.Getuid() {
		uc.Close()
		return nil, fmt.Errorf("connect to the scv daemon at %s: the socket is served by uid %d, not by you (uid %d)",
			socket, uid, os.Getuid())
	}
	return uc, nil
}

// Dial applies mode: it returns a daemon connection to forward to, or nil
// (and no error) when the bridge should serve in-process. startDaemon is
// called in ModeRequired when no daemon answers; then Dial polls the socket
// for up to StartTimeout.
func Dial(mode Mode, socket string, startDaemon func() error) (*net.UnixConn, error) {
	return dial(mode, socket, startDaemon, StartTimeout)
}

func dial(mode Mode, socket string, startDaemon func() error, startTimeout time.Duration) (*net.UnixConn, error) {
	switch mode {
	case ModeNever:
		return nil, nil
	case ModeAuto:
		c, err := Connect(socket)
		if err != nil {
			return nil, nil // nothing answers: serve in-process
		}
		return c, nil
	case ModeRequired:
	default:
		return nil, fmt.Errorf("unknown daemon mode %q", mode)
	}
	if c, err := Connect(socket); err == nil {
		return c, nil
	}
	if err := startDaemon(); err != nil {
		return nil, fmt.Errorf("start the scv daemon: %w", err)
	}
	deadline := time.Now().Add(startTimeout)
	wait := minStartPoll
	for {
		// Polling is right here: the daemon is another process and says
		// nothing until its socket answers.
		c, err := Connect(socket)
		if err == nil {
			return c, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the scv daemon did not answer on %s within %v (see its log): %w", socket, startTimeout, err)
		}
		time.Sleep(wait)
		wait = min(2*wait, maxStartPoll)
	}
}

// StartDaemon starts `<this executable> daemon --socket <socket>` in its own
// session, detached from the caller's terminal and stdio, with its output
// appended to logPath. It does not wait for the daemon to listen.
func StartDaemon(socket, logPath string, extraArgs ...string) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the scv executable: %w", err)
	}
	return startDetached(exe, append([]string{"daemon", "--socket", socket}, extraArgs...), logPath)
}

func startDetached(exe string, args []string, logPath string) error {
	if err := os.MkdirAll(filepath.Dir(logPath), SocketDirPerm); err != nil {
		return fmt.Errorf("create the log directory: %w", err)
	}
	logFile, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open the daemon log: %w", err)
	}
	defer logFile.Close()
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		return fmt.Errorf("open %s: %w", os.DevNull, err)
	}
	defer devNull.Close()
	cmd := exec.Command(exe, args...)
	cmd.Stdin = devNull
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("run %s: %w", exe, err)
	}
	// The daemon outlives this process; init reaps it after we exit.
	if err := cmd.Process.Release(); err != nil {
		return fmt.Errorf("release the daemon process: %w", err)
	}
	return nil
}
