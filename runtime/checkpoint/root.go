package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"scv/internal/regfile"
)

// DefaultMaxBytes is checkpoints.max_bytes' default: the space every
// session's checkpoints may take together.
const DefaultMaxBytes = 512 << 20

// sizeFile holds a session's last measured checkpoint size, so pruning
// reads one small file per session instead of walking its objects.
const sizeFile = "size"

// Root is the directory holding every session's checkpoints
// ($SCV_HOME/checkpoints), bounded by maxBytes across sessions.
type Root struct {
	dir      string
	maxBytes int64
	keepOut  []string // absolute directories no snapshot holds (see KeepOut)
}

// KeepOut makes snapshots leave dirs out wherever a workspace holds them:
// scv's home (its checkpoints, its session logs) is inside a workspace
// when scv runs in the home directory, and a turn's changes, and its undo,
// must never take in the files scv writes itself.
func (r *Root) KeepOut(dirs ...string) *Root {
	r.keepOut = append(r.keepOut, dirs...)
	return r
}

// NewRoot returns the checkpoints under dir, bounded by maxBytes.
func NewRoot(dir string, maxBytes int64) *Root {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	return &Root{dir: dir, maxBytes: maxBytes}
}

// MaxBytes is the bound across sessions.
func (r *Root) MaxBytes() int64 { return r.maxBytes }

func (r *Root) sessionDir(session string) (string, error) {
	if session == "" || strings.ContainsAny(session, `/\`) || session == "." || session == ".." {
		return "", fmt.Errorf("invalid session id %q for checkpoints", session)
	}
	return filepath.Join(r.dir, session), nil
}

// Open returns session's shadow repository over workspace, creating it.
func (r *Root) Open(ctx context.Context, session, workspace string) (*Repo, error) {
	dir, err := r.sessionDir(session)
	if err != nil {
		return nil, err
	}
	return open(ctx, dir, workspace, r.keepOut)
}

// Exists reports whether session has checkpoints.
func (r *Root) Exists(session string) bool {
	dir, err := r.sessionDir(session)
	if err != nil {
		return false
	}
	_, err = os.Stat(filepath.Join(dir, gitDirName, "HEAD"))
	return err == nil
}

// Account adds added bytes to repo's recorded size and drops the oldest
// other sessions' checkpoints until all of them fit in the bound. It
// reports whether repo alone is over the bound. The size is an estimate
// from above (the files' sizes before compression): measuring it with
// git count-objects walks every loose object, which in a workspace of
// 50,000 files costs more than the snapshot itself.
func (r *Root) Account(repo *Repo, added int64) (over bool, err error) {
	n, _, _ := readSize(repo.dir)
	n += added
	if err := writeSize(repo.dir, n); err != nil {
		return false, fmt.Errorf("record checkpoint size: %w", err)
	}
	return n > r.maxBytes, r.prune(filepath.Base(repo.dir))
}

// maxSizeFileBytes bounds a size file, which holds one decimal number.
const maxSizeFileBytes = 32

// readSize reads session directory dir's recorded size and when it was
// recorded; ok is false when there is none. Only a regular file is read:
// the checkpoints may be inside a workspace (scv run in ~), where a named
// pipe could stand in a size file's place, and its open would wait.
func readSize(dir string) (n int64, at time.Time, ok bool) {
	path := filepath.Join(dir, sizeFile)
	if info, err := os.Lstat(path); err != nil || !info.Mode().IsRegular() {
		return 0, time.Time{}, false
	}
	b, info, err := regfile.ReadFile(path, maxSizeFileBytes) // and if it was swapped since
	if err != nil {
		return 0, time.Time{}, false
	}
	n, _ = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return n, info.ModTime(), true
}

// writeSize records n as dir's size: written beside the size file and
// renamed over it, so whatever stood there is replaced, never opened.
func writeSize(dir string, n int64) error {
	tmp := filepath.Join(dir, sizeFile+".new")
	os.Remove(tmp)
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(strconv.FormatInt(n, 10))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, sizeFile))
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

type sized struct {
	dir   string
	bytes int64
	mtime time.Time
}

// prune removes the least recently snapshotted sessions' checkpoints,
// never keep's, until the total fits.
func (r *Root) prune(keep string) error {
	ents, err := os.ReadDir(r.dir)
	if err != nil {
		return fmt.Errorf("list checkpoints: %w", err)
	}
	var all []sized
	var total int64
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(r.dir, e.Name())
		n, at, ok := readSize(dir)
		if !ok {
			continue // being created, or never measured
		}
		total += n
		if e.Name() != keep {
			all = append(all, sized{dir, n, at})
		}
	}
	slices.SortFunc(all, func(a, b sized) int { return a.mtime.Compare(b.mtime) })
	var errs []error
	for _, s := range all {
		if total <= r.maxBytes {
			break
		}
		if err := os.RemoveAll(s.dir); err != nil {
			errs = append(errs, fmt.Errorf("drop checkpoints %s: %w", s.dir, err))
			continue
		}
		total -= s.bytes
	}
	return errors.Join(errs...)
}

// Remove deletes session's checkpoints.
func (r *Root) Remove(session string) error {
	dir, err := r.sessionDir(session)
	if err != nil {
		return err
	}
	return os.RemoveAll(dir)
}

// Copy gives session to the checkpoints of session from (a fork), so each
// can be reverted on its own. Objects never change once written, so they
// are hard-linked where the file system allows; the rest is copied.
func (r *Root) Copy(from, to string) error {
	src, err := r.sessionDir(from)
	if err != nil {
		return err
	}
	dst, err := r.sessionDir(to)
	if err != nil {
		return err
	}
	if !r.Exists(from) {
		return nil
	}
	objects := filepath.Join(src, gitDirName, "objects") + string(filepath.Separator)
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o700)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if strings.HasPrefix(path, objects) && os.Link(path, target) == nil {
			return nil
		}
		return copyFile(path, target)
	})
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s: %w", from, err)
	}
	return out.Close()
}
