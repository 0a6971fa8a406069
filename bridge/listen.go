package bridge

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

const (
	// SocketDirPerm is the mode of a socket directory scv creates.
	SocketDirPerm = 0o700
	// SocketPerm is the socket's mode: only its owner may connect.
	SocketPerm = 0o600
	// probeTimeout bounds the connect that tells a live socket from a stale one.
	probeTimeout = 2 * time.Second
	// lockAttempts bounds retries when the lock file is replaced while we lock it.
	lockAttempts = 3
)

// AlreadyRunningError reports that another daemon holds the socket.
type AlreadyRunningError struct{ Socket string }

func (e *AlreadyRunningError) Error() string {
	return "scv daemon already running at " + e.Socket
}

// Listener is the daemon's bound socket together with the lock that makes
// it the only daemon for that path. Create it with Listen, serve it with
// Run, which closes it.
type Listener struct {
	path     string
	lockPath string
	lock     *os.File
	ln       *net.UnixListener
	sockStat os.FileInfo // the socket file we bound, so Close removes only it
	uid      int         // the uid every peer must have

	closeOnce sync.Once
	closeErr  error
}

// Listen locks the socket's lock file, clears a stale socket and binds path.
// A live daemon yields *AlreadyRunningError. A regular file, directory or
// symbolic link at path is never removed: it is reported instead.
func Listen(path string) (*Listener, error) {
	if err := checkSocketPathLength(path); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), SocketDirPerm); err != nil {
		return nil, fmt.Errorf("create the socket directory: %w", err)
	}
	l := &Listener{path: path, lockPath: LockPath(path), uid: os.Getuid()}
	lock, err := acquireLock(l.lockPath, path)
	if err != nil {
		return nil, err
	}
	l.lock = lock
	if err := clearSocketPath(path); err != nil {
		l.releaseLock()
		return nil, err
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		l.releaseLock()
		return nil, fmt.Errorf("bind the daemon socket %s: %w", path, err)
	}
	// Run removes the file itself, after the drain, and only if it is still ours.
	ln.SetUnlinkOnClose(false)
	l.ln = ln
	// Between bind and chmod the socket has the umask's mode; that window is
	// harmless because every peer's uid is checked on accept anyway.
	if err := os.Chmod(path, SocketPerm); err != nil {
		l.Close()
		return nil, fmt.Errorf("restrict the daemon socket %s: %w", path, err)
	}
	if l.sockStat, err = os.Lstat(path); err != nil {
		l.Close()
		return nil, fmt.Errorf("stat the daemon socket %s: %w", path, err)
	}
	return l, nil
}

// Close stops listening, removes the socket and the lock file, and releases
// the lock. Run calls it; call it yourself only when not running.
func (l *Listener) Close() error {
	l.closeOnce.Do(func() {
		l.stopAccepting()
		if fi, err := os.Lstat(l.path); err == nil && l.sockStat != nil && os.SameFile(fi, l.sockStat) {
			if err := os.Remove(l.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				l.closeErr = fmt.Errorf("remove the daemon socket: %w", err)
			}
		}
		l.releaseLock()
	})
	return l.closeErr
}

func (l *Listener) stopAccepting() {
	if l.ln != nil {
		l.ln.Close()
	}
}

// releaseLock removes the lock file before unlocking it, so a daemon that
// starts meanwhile either fails to lock or notices the file changed.
func (l *Listener) releaseLock() {
	if l.lock == nil {
		return
	}
	if fi, err := os.Lstat(l.lockPath); err == nil {
		if own, err := l.lock.Stat(); err == nil && os.SameFile(fi, own) {
			os.Remove(l.lockPath)
		}
	}
	l.lock.Close() // closing the descriptor drops the flock
	l.lock = nil
}

// acquireLock takes an exclusive, non-blocking flock on path and checks the
// file it locked is still the one at path (a daemon that was exiting may
// have removed it between our open and our flock).
func acquireLock(path, socket string) (*os.File, error) {
	for range lockAttempts {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
		if err != nil {
			return nil, fmt.Errorf("open the daemon lock %s: %w", path, err)
		}
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, unix.EWOULDBLOCK) {
				return nil, &AlreadyRunningError{Socket: socket}
			}
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		own, err1 := f.Stat()
		cur, err2 := os.Lstat(path)
		if err1 == nil && err2 == nil && os.SameFile(own, cur) {
			// The pid is for people reading the file; nothing parses it.
			if err := f.Truncate(0); err == nil {
				f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
			}
			return f, nil
		}
		f.Close()
	}
	return nil, fmt.Errorf("lock %s: the file kept changing while being locked", path)
}

// clearSocketPath makes path free to bind: nothing there is fine, a socket
// nobody answers on is removed, anything else is an error.
func clearSocketPath(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("inspect the socket path %s: %w", path, err)
	}
	mode := fi.Mode()
	if mode&fs.ModeSocket == 0 || mode&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s exists and is %s, not a socket; scv will not remove it: move it away or choose another --socket",
			path, describeMode(mode))
	}
	c, err := net.DialTimeout("unix", path, probeTimeout)
	if err == nil {
		c.Close()
		return &AlreadyRunningError{Socket: path}
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		// A full backlog (EAGAIN) or a permission problem: not provably stale.
		return fmt.Errorf("probe the existing socket %s: %w", path, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove the stale socket %s: %w", path, err)
	}
	return nil
}

func describeMode(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m.IsRegular():
		return "a regular file"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeDevice != 0:
		return "a device"
	default:
		return "a " + m.Type().String() + " file"
	}
}

// peerUID returns the uid of the process at the other end of c.
func peerUID(c *net.UnixConn) (int, error) {
	cred, err := peerCred(c)
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}

func peerCred(c *net.UnixConn) (*unix.Ucred, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("peer credentials: %w", err)
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return nil, fmt.Errorf("peer credentials: %w", err)
	}
	if credErr != nil {
		return nil, fmt.Errorf("peer credentials: %w", credErr)
	}
	return cred, nil
}

// PeerPID returns the pid of the process at the other end of c: the daemon
// itself, or the process relaying the socket (ssh) when it is forwarded.
func PeerPID(c *net.UnixConn) (int, error) {
	cred, err := peerCred(c)
	if err != nil {
		return 0, err
	}
	return int(cred.Pid), nil
}
