package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"scv/internal/regfile"
)

// A revert reads and writes the workspace only through workTree: every
// path is walked from the workspace's os.Root one name at a time, and a
// name on the way that is not a directory (a symlink, a file, a named
// pipe) stops the walk. So a revert never reaches outside the workspace,
// never reaches a file through a symlink (even one inside the workspace:
// that file is not the target), and never opens what is not a regular
// file (a named pipe's reader would wait for a writer forever).

// workTree is the workspace as a revert sees it.
type workTree struct{ root *os.Root }

func openWorkTree(dir string) (*workTree, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open the workspace: %w", err)
	}
	return &workTree{root: root}, nil
}

func (w *workTree) Close() error { return w.root.Close() }

// errBlocked is a walk stopped by a name on the way that is not a
// directory.
type errBlocked struct{ parent, what string }

func (e *errBlocked) Error() string { return e.parent + " is " + e.what + ", not a directory" }

// parent opens the directory holding path (slash-separated, relative to
// the workspace) and returns it with path's last name. create makes the
// directories that are missing; without it a missing one is
// fs.ErrNotExist. A name on the way that is not a directory is an
// *errBlocked.
func (w *workTree) parent(path string, create bool) (*os.Root, string, error) {
	d, err := w.root.OpenRoot(".")
	if err != nil {
		return nil, "", err
	}
	names := strings.Split(path, "/")
	for i, name := range names[:len(names)-1] {
		next, err := enter(d, name, create)
		d.Close()
		var blk *errBlocked
		if errors.As(err, &blk) {
			blk.parent = strings.Join(names[:i+1], "/")
		}
		if err != nil {
			return nil, "", err
		}
		d = next
	}
	return d, names[len(names)-1], nil
}

// enter opens directory name in d, refusing anything else.
func enter(d *os.Root, name string, create bool) (*os.Root, error) {
	info, err := d.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) && create {
		if err := d.Mkdir(name, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		info, err = d.Lstat(name)
	}
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, &errBlocked{what: regfile.Describe(info.Mode())}
	}
	next, err := d.OpenRoot(name) // follows a symlink swapped in meanwhile...
	if err != nil {
		return nil, err
	}
	if now, err := next.Stat("."); err != nil || !os.SameFile(info, now) {
		next.Close() // ...which this tells
		return nil, &errBlocked{what: "being replaced"}
	}
	return next, nil
}

// remove removes the file, symlink or special file at path. Nothing there,
// a directory there (no file of the turns'), or a parent that is not a
// directory any more (so no file is there either) leave it as it is.
func (w *workTree) remove(path string) error {
	d, name, err := w.parent(path, false)
	var blk *errBlocked
	if errors.As(err, &blk) || errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer d.Close()
	info, err := d.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && info.IsDir()) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := d.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// errHolds is a directory in the way of a file that holds something a
// revert does not remove.
type errHolds struct{ dir, first string }

func (e *errHolds) Error() string {
	return e.dir + " is a directory holding " + e.first + ": a revert deletes no directory's files"
}

// firstKept returns a path under directory dir that is not in removed
// ("" when every file under dir is): dir can only be emptied for the
// file it stands in place of when the revert removes all of it.
func (w *workTree) firstKept(dir string, removed map[string]bool) (string, error) {
	d, name, err := w.parent(dir, false)
	if err != nil {
		return "", err
	}
	defer d.Close()
	return firstKeptIn(d, name, dir, removed)
}

func firstKeptIn(d *os.Root, name, path string, removed map[string]bool) (string, error) {
	sub, err := enter(d, name, false)
	if err != nil {
		return "", err
	}
	defer sub.Close()
	ents, err := fs.ReadDir(sub.FS(), ".")
	if err != nil {
		return "", err
	}
	for _, e := range ents {
		p := path + "/" + e.Name()
		if !e.IsDir() {
			if !removed[p] {
				return p, nil
			}
			continue
		}
		if kept, err := firstKeptIn(sub, e.Name(), p, removed); kept != "" || err != nil {
			return kept, err
		}
	}
	return "", nil
}

// removeEmptyDir removes the directory name in d and the directories in
// it. Only directories go: rmdir refuses one that holds anything else.
func removeEmptyDir(d *os.Root, name, path string) error {
	sub, err := enter(d, name, false)
	if err != nil {
		return err
	}
	ents, err := fs.ReadDir(sub.FS(), ".")
	for _, e := range ents {
		if err != nil {
			break
		}
		if !e.IsDir() {
			err = &errHolds{dir: path, first: path + "/" + e.Name()}
			break
		}
		err = removeEmptyDir(sub, e.Name(), path+"/"+e.Name())
	}
	sub.Close()
	if err != nil {
		return err
	}
	return d.Remove(name)
}
