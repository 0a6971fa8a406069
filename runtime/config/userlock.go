package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// UserFileLockWait bounds how long scv waits for the user file's lock. The
// lock is held only while scv reads and rewrites two small files, so a
// longer wait means a process holds it that will not let go (a command's
// job that escaped its call, a stuck tool): then the rule check fails and
// the call is asked about, instead of every session of every scv process
// on this home waiting for it in a flock no cancel can end.
const UserFileLockWait = 2 * time.Second

// userLockRetry is how long scv waits between tries at most; the first
// tries follow each other closely, since the lock is usually free at once.
const userLockRetry = 50 * time.Millisecond

// errUserFileLockHeld reports a lock that did not come free in time.
var errUserFileLockHeld = errors.New("held by another process")

// lockUserFile serialises edits of the user's file across processes (a
// daemon and an scv lsp may add rules at once, and both must be kept): an
// exclusive flock on a lock file beside it, released by the returned func.
// It waits at most UserFileLockWait.
func lockUserFile(home string) (func(), error) {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, err
	}
	path := filepath.Join(home, "."+FileName+".lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(UserFileLockWait)
	for pause := time.Millisecond; ; pause = min(2*pause, userLockRetry) {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil // closing drops the flock
		}
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) {
			f.Close()
			return nil, err
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("%s: %w for over %s", path, errUserFileLockHeld, UserFileLockWait)
		}
		time.Sleep(pause)
	}
}
