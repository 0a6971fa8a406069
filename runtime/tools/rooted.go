package tools

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Every file access of the tools goes through an os.Root opened on the
// workspace: Resolve gives the friendly answer ("outside the workspace")
// for a path as it is now, and the root makes the open itself refuse any
// component that became a symlink out of the workspace since. Checking and
// opening by path separately would let a racing process swap a directory
// for such a symlink in between.

// tempPrefix starts the name of a file being written, next to its target.
const tempPrefix = ".scv-tmp-"

// locate resolves path and opens the workspace root; name is path relative
// to the root, in the form the root's methods take. The caller closes root.
func (w *Workspace) locate(path string) (root *os.Root, name string, err error) {
	real, err := w.Resolve(path)
	if err != nil {
		return nil, "", err
	}
	name, err = filepath.Rel(w.root, real)
	if err != nil {
		return nil, "", fmt.Errorf("path %q: %w", path, err)
	}
	root, err = os.OpenRoot(w.root)
	if err != nil {
		return nil, "", fmt.Errorf("open workspace %s: %w", w.root, err)
	}
	return root, name, nil
}

// openRegular opens name for reading if it is a regular file. The file is
// opened non-blocking, so a FIFO swapped in after the first check cannot
// hang the open, and checked again through the open descriptor.
func openRegular(root *os.Root, name string) (*os.File, fs.FileInfo, error) {
	rel := filepath.ToSlash(name)
	info, err := root.Stat(name)
	if err != nil {
		return nil, nil, err
	}
	if err := checkRegular(info, rel); err != nil {
		return nil, nil, err
	}
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	info, err = f.Stat()
	if err == nil {
		err = checkRegular(info, rel)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, info, nil
}

func checkRegular(info fs.FileInfo, rel string) error {
	switch {
	case info.IsDir():
		return fmt.Errorf("%s is a directory", rel)
	case !info.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file", rel)
	}
	return nil
}

// writeAtomic replaces name with data: it writes a temporary file in the
// target's directory and renames it into place, so a reader never sees a
// half-written file and a failed write leaves the old one. An existing
// file's permissions carry over; missing parent directories are created.
func writeAtomic(root *os.Root, name string, data []byte) error {
	if err := root.MkdirAll(filepath.Dir(name), newDirMode); err != nil {
		return fmt.Errorf("create parent directories: %w", err)
	}
	// Everything below happens in the directory opened once here: the
	// temporary file, the rename and the cleanup of a failed write cannot
	// be redirected by a component of the path changing meanwhile.
	dir, err := root.OpenRoot(filepath.Dir(name))
	if err != nil {
		return err
	}
	defer dir.Close()
	base := filepath.Base(name)
	perm, keep := fs.FileMode(newFileMode), false
	if info, err := dir.Lstat(base); err == nil {
		if err := checkRegular(info, filepath.ToSlash(name)); err != nil {
			return err
		}
		perm, keep = info.Mode().Perm(), true
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	tmp, f, err := createTemp(dir, perm)
	if err != nil {
		return err
	}
	committed := false
	defer func() {
		if !committed {
			f.Close()
			dir.Remove(tmp)
		}
	}()
	if keep {
		// The umask may have narrowed the mode at creation; an existing
		// file keeps exactly the permissions it had.
		if err := f.Chmod(perm); err != nil {
			return err
		}
	}
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := dir.Rename(tmp, base); err != nil {
		return err
	}
	committed = true
	return nil
}

// createTemp creates a new, empty file with a random name in dir.
func createTemp(dir *os.Root, perm fs.FileMode) (string, *os.File, error) {
	for range 10 {
		var b [8]byte
		_, _ = rand.Read(b[:])
		name := tempPrefix + hex.EncodeToString(b[:])
		f, err := dir.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", nil, fmt.Errorf("create temporary file: %w", err)
		}
		return name, f, nil
	}
	return "", nil, errors.New("create temporary file: too many name collisions")
}
