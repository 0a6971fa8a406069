package checkpoint

import (
	"cmp"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
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

// Conflict is a file changed since the turns that are being undone, or
// one a revert cannot restore safely (its diff's first line says why).
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
// too. A file that cannot be restored without reaching more than it (see
// obstacle) is a conflict even with force. Each file is replaced whole by
// a rename, so a revert killed half way leaves every file either old or
// restored, and running it again finishes it (a restored file counts as
// reverted, not as a conflict). Files already as wanted are not written,
// so their mtimes stay. A file that fails to be restored once writing has
// begun is a conflict too (saying why), and the others are still
// restored. afterFile, when set, is called after each file written (tests
// stop there to play a crash).
func (r *Repo) Revert(ctx context.Context, targets []Target, force bool, afterFile func(path string)) (Outcome, error) {
	w, err := openWorkTree(r.g.work)
	if err != nil {
		return Outcome{}, err
	}
	defer w.Close()
	f := w.find(targets, force)
	out := Outcome{Reverted: f.done}
	for _, t := range f.pending {
		why := w.obstacle(t, f.now[t.Path], f.removed)
		if why == "" && !f.changed[t.Path] {
			continue
		}
		c, err := r.conflict(ctx, w, t, why)
		if err != nil {
			return Outcome{}, err
		}
		out.Conflicts = append(out.Conflicts, c)
	}
	if len(out.Conflicts) > 0 {
		return Outcome{Reverted: []string{}, Conflicts: out.Conflicts}, nil
	}
	for _, t := range inRestoreOrder(f.todo) {
		if err := r.restore(ctx, w, t); err != nil {
			if ctx.Err() != nil {
				return out, err
			}
			c, cerr := r.conflict(ctx, w, t, "not reverted: "+err.Error()+"; a revert again finishes it")
			if cerr != nil {
				return out, errors.Join(err, cerr)
			}
			out.Conflicts = append(out.Conflicts, c)
			continue
		}
		out.Reverted = append(out.Reverted, t.Path)
		if afterFile != nil {
			afterFile(t.Path)
		}
	}
	return out, nil
}

// found is the targets as a revert finds them on disk.
type found struct {
	done    []string // already as wanted
	todo    []Target // to restore, if the revert goes ahead
	pending []Target // todo and the changed ones, in plan order
	now     map[string]onDisk
	changed map[string]bool // changed since the turns: conflicts unless forced
	removed map[string]bool // what the revert removes, if it goes ahead
}

func (w *workTree) find(targets []Target, force bool) found {
	f := found{now: map[string]onDisk{}, changed: map[string]bool{}, removed: map[string]bool{}}
	for _, t := range targets {
		if (t.Want != nil && t.Want.Mode == modeGitlink) || (t.Left != nil && t.Left.Mode == modeGitlink) {
			continue
		}
		now := w.look(t.Path)
		switch {
		case sameEntry(now.file(), t.Want):
			f.done = append(f.done, t.Path)
			continue
		case (sameEntry(now.file(), t.Left) && !t.Late) || force:
			f.todo = append(f.todo, t)
			f.removed[t.Path] = t.Want == nil
		default:
			f.changed[t.Path] = true
		}
		f.now[t.Path] = now
		f.pending = append(f.pending, t)
	}
	return f
}

// inRestoreOrder is removals first, deepest first (a directory's files go
// before a file or symlink takes its place), then writes, shallowest
// first (a symlink in a parent's place is gone and the parent is made
// before its files are written).
func inRestoreOrder(todo []Target) []Target {
	depth := func(t Target) int { return strings.Count(t.Path, "/") }
	order := slices.Clone(todo)
	slices.SortStableFunc(order, func(a, b Target) int {
		switch {
		case (a.Want == nil) != (b.Want == nil):
			if a.Want == nil {
				return -1
			}
			return 1
		case a.Want == nil:
			return cmp.Compare(depth(b), depth(a))
		default:
			return cmp.Compare(depth(a), depth(b))
		}
	})
	return order
}

// obstacle says why t cannot be restored without reaching more than the
// file itself ("" when it can), whatever force says: a parent that is not
// a directory and that the revert does not remove (a symlink the revert
// would write through, a file it would have to delete), or a directory in
// the file's place holding files the revert does not remove. Removing a
// file never meets one: a file not there is removed already.
func (w *workTree) obstacle(t Target, now onDisk, removed map[string]bool) string {
	if t.Want == nil {
		return ""
	}
	switch now.kind {
	case blocked:
		// The parent in the way must be one the revert removes: from
		// there down the directories are made anew.
		names := strings.Split(t.Path, "/")
		for i := 1; i < len(names); i++ {
			p := strings.Join(names[:i], "/")
			if removed[p] {
				return ""
			}
			switch w.look(p).kind {
			case directory:
			case absent:
				return ""
			default:
				return now.what + ": a revert does not write through it or replace it" + moveAway
			}
		}
	case directory:
		kept, err := w.firstKept(t.Path, removed)
		if err != nil {
			return t.Path + " is a directory that cannot be read: " + err.Error() + moveAway
		}
		if kept != "" {
			return (&errHolds{dir: t.Path, first: kept}).Error() + moveAway
		}
	}
	return ""
}

// moveAway ends the reason of a file no revert restores where it is.
const moveAway = "; move it away and revert again"

// lateNote heads the diff of a file changed again after the turns ended.
const lateNote = "# changed again after the turn ended; this diff is from before the turn to now\n"

// conflict is t's conflict with a diff to what is on disk; why, when set,
// is why no revert, forced or not, restores it until it is moved away.
func (r *Repo) conflict(ctx context.Context, w *workTree, t Target, why string) (Conflict, error) {
	left, cur := EmptyBlob, EmptyBlob
	var note strings.Builder
	if why != "" {
		fmt.Fprintf(&note, "# %s\n", why)
	}
	from := t.Left
	if t.Late {
		from = t.Want
		note.WriteString(lateNote)
	}
	if from != nil {
		left = from.Hash
	}
	now, data := w.read(t.Path, true)
	switch now.kind {
	case regular, symlink:
		if now.what != "" { // too large to read whole
			fmt.Fprintf(&note, "# %s is %s now, more than the %d a conflict's diff reads; its content is not shown\n", t.Path, now.what, MaxConflictReadBytes)
			return Conflict{Path: t.Path, Diff: note.String()}, nil
		}
		var err error
		if cur, err = r.Store(ctx, data); err != nil {
			return Conflict{}, err
		}
	case special:
		fmt.Fprintf(&note, "# %s is %s now; its content is not read\n", t.Path, now.what)
	case directory:
		if why == "" { // else why said it
			fmt.Fprintf(&note, "# %s is a directory now; no file is there\n", t.Path)
		}
	case blocked:
		if why == "" {
			fmt.Fprintf(&note, "# %s; no file is there now\n", now.what)
		}
	case unreadable:
		fmt.Fprintf(&note, "# %s cannot be read: %s\n", t.Path, now.what)
	}
	diff, err := r.DiffBlobs(ctx, left, cur, t.Path, MaxConflictDiffBytes)
	if err != nil {
		return Conflict{}, err
	}
	return Conflict{Path: t.Path, Diff: note.String() + diff}, nil
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

// restore makes one file what t wants: removed, or written beside it and
// renamed over it (over a file, a symlink or a special file: never
// through one), an empty directory in its place removed first.
func (r *Repo) restore(ctx context.Context, w *workTree, t Target) error {
	if t.Want == nil {
		return w.remove(t.Path)
	}
	d, name, err := w.parent(t.Path, true)
	if err != nil {
		return err
	}
	defer d.Close()
	if info, err := d.Lstat(name); err == nil && info.IsDir() {
		if err := removeEmptyDir(d, name, t.Path); err != nil {
			return err
		}
	}
	tmp := tempName(name)
	if err := r.writeTemp(ctx, d, tmp, *t.Want); err != nil {
		d.Remove(tmp)
		return err
	}
	if err := d.Rename(tmp, name); err != nil {
		d.Remove(tmp)
		return err
	}
	return nil
}

// tempName is the temporary file a revert writes name's content to
// before renaming it over name. It is the same for the same name, so a
// revert run again after one killed half way replaces its leftover, and
// short whatever name's length: a name of the longest a file system
// allows leaves no room for a prefix and a suffix.
func tempName(name string) string {
	sum := sha1.Sum([]byte(name))
	return ".scv-revert-" + hex.EncodeToString(sum[:8])
}

// writeTemp writes want as tmp in d.
func (r *Repo) writeTemp(ctx context.Context, d *os.Root, tmp string, want Entry) error {
	if info, err := d.Lstat(tmp); err == nil && !info.IsDir() {
		d.Remove(tmp) // a leftover of a revert that was killed
	}
	if want.Mode == modeSymlink {
		target, err := r.Blob(ctx, want.Hash)
		if err != nil {
			return err
		}
		return d.Symlink(string(target), tmp)
	}
	perm := os.FileMode(0o644)
	if want.Mode == modeExecutable {
		perm = 0o755
	}
	f, err := d.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
	if err != nil {
		return err
	}
	_, runErr := r.g.stream(ctx, nil, f, "cat-file", "blob", want.Hash)
	syncErr := f.Sync()
	chmodErr := f.Chmod(perm) // the umask may have narrowed it
	return errors.Join(runErr, syncErr, chmodErr, f.Close())
}
