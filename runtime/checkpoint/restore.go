package checkpoint

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// EmptyBlob is git's empty blob: the side of a diff where a file is absent.
const EmptyBlob = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"

// MaxConflictDiffBytes bounds the diff a conflict carries.
const MaxConflictDiffBytes = 256 << 10

// modeGitlink is a nested repository, which checkpoints do not restore.
const modeGitlink = "160000"

// Target is what one file is restored to, and what the turns being undone
// left it as: a file that is neither was changed by someone else.
type Target struct {
	Path string
	Want *Entry // nil: the file did not exist
	Left *Entry // nil: the turns left no file
	// Late: the file changed again after the last of the turns ended, so
	// Left may hold that change too and cannot vouch for the file.
	Late bool
}

// Conflict is a file changed since the turns that are being undone.
type Conflict struct {
	Path string
	Diff string // from what the turns left to what is on disk now
}

// Outcome is what Revert did.
type Outcome struct {
	Reverted  []string
	Conflicts []Conflict
}

// Revert restores every target. A file that is neither what the turns
// left nor already restored is a conflict: without force nothing at all
// is written and the conflicts are returned; with force it is restored
// too. Each file is replaced whole by a rename, so a revert killed half
// way leaves every file either old or restored, and running it again
// finishes it (a restored file counts as reverted, not as a conflict).
// Files already as wanted are not written, so their mtimes stay.
// afterFile, when set, is called after each file written (tests stop
// there to play a crash).
func (r *Repo) Revert(ctx context.Context, targets []Target, force bool, afterFile func(path string)) (Outcome, error) {
	var out Outcome
	var todo []Target
	for _, t := range targets {
		if (t.Want != nil && t.Want.Mode == modeGitlink) || (t.Left != nil && t.Left.Mode == modeGitlink) {
			continue
		}
		now, err := r.current(t.Path)
		if err != nil {
			return Outcome{}, err
		}
		switch {
		case sameEntry(now, t.Want):
			out.Reverted = append(out.Reverted, t.Path)
		case (sameEntry(now, t.Left) && !t.Late) || force:
			todo = append(todo, t)
		default:
			c, err := r.conflict(ctx, t, now)
			if err != nil {
				return Outcome{}, err
			}
			out.Conflicts = append(out.Conflicts, c)
		}
	}
	if len(out.Conflicts) > 0 && !force {
		return Outcome{Reverted: []string{}, Conflicts: out.Conflicts}, nil
	}
	for _, t := range todo {
		if err := r.restore(ctx, t); err != nil {
			return out, err
		}
		out.Reverted = append(out.Reverted, t.Path)
		if afterFile != nil {
			afterFile(t.Path)
		}
	}
	return out, nil
}

// lateNote heads the diff of a file changed again after the turns ended.
const lateNote = "# changed again after the turn ended; this diff is from before the turn to now\n"

func (r *Repo) conflict(ctx context.Context, t Target, now *Entry) (Conflict, error) {
	left, cur, note := EmptyBlob, EmptyBlob, ""
	from := t.Left
	if t.Late {
		from, note = t.Want, lateNote
	}
	if from != nil {
		left = from.Hash
	}
	if now != nil && now.Mode != "dir" {
		data, err := r.read(t.Path, now)
		if err != nil {
			return Conflict{}, err
		}
		if cur, err = r.Store(ctx, data); err != nil {
			return Conflict{}, err
		}
	}
	diff, err := r.DiffBlobs(ctx, left, cur, t.Path, MaxConflictDiffBytes)
	if err != nil {
		return Conflict{}, err
	}
	return Conflict{Path: t.Path, Diff: note + diff}, nil
}

func sameEntry(a, b *Entry) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Hash == b.Hash && (a.Mode == modeSymlink) == (b.Mode == modeSymlink)
}

const (
	modeSymlink    = "120000"
	modeExecutable = "100755"
)

// current is the file on disk as an entry (nil when absent), hashed as
// git hashes a blob.
func (r *Repo) current(path string) (*Entry, error) {
	abs := filepath.Join(r.g.work, path)
	info, err := os.Lstat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("revert %s: %w", path, err)
	}
	e := &Entry{Mode: "100644"}
	switch {
	case info.IsDir():
		return &Entry{Mode: "dir"}, nil
	case info.Mode()&fs.ModeSymlink != 0:
		e.Mode = modeSymlink
	case info.Mode()&0o111 != 0:
		e.Mode = modeExecutable
	}
	data, err := r.read(path, e)
	if err != nil {
		return nil, err
	}
	h := sha1.New()
	io.WriteString(h, "blob "+strconv.Itoa(len(data))+"\x00")
	h.Write(data)
	e.Hash = hex.EncodeToString(h.Sum(nil))
	return e, nil
}

func (r *Repo) read(path string, e *Entry) ([]byte, error) {
	abs := filepath.Join(r.g.work, path)
	if e.Mode == modeSymlink {
		target, err := os.Readlink(abs)
		return []byte(target), err
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, fmt.Errorf("revert %s: %w", path, err)
	}
	return data, nil
}

// restore makes one file what t wants: removed, or written beside it and
// renamed over it.
func (r *Repo) restore(ctx context.Context, t Target) error {
	abs := filepath.Join(r.g.work, t.Path)
	if info, err := os.Lstat(abs); err == nil && info.IsDir() {
		// Forced over a directory someone put in the file's place.
		if err := os.RemoveAll(abs); err != nil {
			return fmt.Errorf("revert %s: %w", t.Path, err)
		}
	}
	if t.Want == nil {
		if err := os.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("revert %s: %w", t.Path, err)
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return fmt.Errorf("revert %s: %w", t.Path, err)
	}
	tmp := filepath.Join(filepath.Dir(abs), "."+filepath.Base(abs)+".scv-revert")
	if err := r.writeTemp(ctx, tmp, *t.Want); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("revert %s: %w", t.Path, err)
	}
	if err := os.Rename(tmp, abs); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("revert %s: %w", t.Path, err)
	}
	return nil
}

func (r *Repo) writeTemp(ctx context.Context, tmp string, want Entry) error {
	os.Remove(tmp) // a leftover of a revert that was killed
	if want.Mode == modeSymlink {
		target, err := r.Blob(ctx, want.Hash)
		if err != nil {
			return err
		}
		return os.Symlink(string(target), tmp)
	}
	perm := os.FileMode(0o644)
	if want.Mode == modeExecutable {
		perm = 0o755
	}
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	cmd := r.g.command(ctx, "cat-file", "blob", want.Hash)
	cmd.Stdout = f
	runErr := cmd.Run()
	syncErr := f.Sync()
	if err := errors.Join(runErr, syncErr, f.Close()); err != nil {
		return err
	}
	return os.Chmod(tmp, perm) // the umask may have narrowed it
}
