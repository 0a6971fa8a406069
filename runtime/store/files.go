package store

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// Every file the store opens is opened with O_NOFOLLOW: a symlink planted
// in the sessions directory is refused instead of followed. Names are
// built from validated ids only, so no other path component can redirect.
const (
	openRead   = os.O_RDONLY | syscall.O_NOFOLLOW
	openWrite  = os.O_RDWR | os.O_APPEND | syscall.O_NOFOLLOW
	createTemp = os.O_RDWR | os.O_APPEND | os.O_CREATE | os.O_EXCL | syscall.O_NOFOLLOW
	fileMode   = 0o600
	dirMode    = 0o700
)

var errLocked = errors.New("locked")

// tryLock takes the writer lock: an exclusive, non-blocking flock on the
// file. flock locks belong to the open file description, so a second open
// of the same file conflicts even within one process; closing the file
// releases the lock, and so does the death of the process.
func tryLock(f *os.File) error {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return errLocked
	}
	return err
}

// openLocked opens the log at path for mode and takes its writer lock. It
// makes sure the locked file is still the one at path: a Delete in another
// process may have removed it between our open and our lock.
func openLocked(id, path string, mode int) (*os.File, error) {
	f, err := os.OpenFile(path, mode, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, notFound(id)
	}
	if err != nil {
		return nil, fmt.Errorf("open session %s: %w", id, err)
	}
	if err := tryLock(f); err != nil {
		f.Close()
		if err == errLocked {
			return nil, &OwnedError{ID: id, Path: path}
		}
		return nil, fmt.Errorf("lock session %s: %w", id, err)
	}
	own, err1 := f.Stat()
	cur, err2 := os.Lstat(path)
	if err1 != nil || err2 != nil || !os.SameFile(own, cur) {
		f.Close()
		return nil, notFound(id)
	}
	return f, nil
}

// newTemp creates a fresh temporary file in dir; List and Load ignore
// these names, and Prune removes old leftovers.
func newTemp(dir string) (*os.File, string, error) {
	var b [8]byte
	rand.Read(b[:])
	path := filepath.Join(dir, tempPrefix+hex.EncodeToString(b[:]))
	f, err := os.OpenFile(path, createTemp, fileMode)
	if err != nil {
		return nil, "", fmt.Errorf("create a temporary file in %s: %w: %w", dir, ErrWrite, err)
	}
	return f, path, nil
}

func (s *Store) fsync(f *os.File) error {
	if s.noFsync {
		return nil
	}
	return f.Sync()
}

// fsyncDir makes the directory's entries (creations, renames, removals)
// durable.
func (s *Store) fsyncDir() error {
	if s.noFsync {
		return nil
	}
	dir := s.dir
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// readAll reads the whole of f, refusing files over MaxLogBytes.
func readAll(f *os.File, path string) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &FormatError{Path: path, Reason: "not a regular file"}
	}
	if fi.Size() > MaxLogBytes {
		return nil, &FormatError{Path: path, Reason: fmt.Sprintf("%d bytes, more than MaxLogBytes (%d)", fi.Size(), MaxLogBytes)}
	}
	data := make([]byte, fi.Size())
	// A reader without the lock may see the file shrink meanwhile (a
	// repair by its owner); it reads what is there.
	n, err := f.ReadAt(data, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return data[:n], nil
}
