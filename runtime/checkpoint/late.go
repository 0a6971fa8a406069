package checkpoint

import (
	"context"
	"strings"
	"time"
)

// A turn's after is snapshotted once the turn has ended, off its critical
// path, so a file changed right after the turn's tools finished (by the
// user, a formatter, a process the turn left running) could pass for the
// turn's change, and a revert would then undo that change without a word.
// The file's inode change time tells them apart: a changed file whose
// ctime is after the end of the turn's last tool was changed after the
// turn too, so its revert is a conflict, whatever the after holds.

// lateRef names the blob listing a turn's late paths (NUL-terminated).
const lateRef = "/late"

// ToolDone marks the end of a tool that may have changed the workspace.
// Until one ends, the checkpoint's own start stands for it: a change
// before any tool of the turn ran is not the turn's.
func (t *Turn) ToolDone() { t.toolsDone = time.Now() }

// late lists the changed paths whose files changed after the turn's
// tools. When the workspace cannot be looked at, every path is: the safe
// side, a conflict.
func (t *Turn) late(changes []Change) []string {
	w, err := openWorkTree(t.repo.g.work)
	if w != nil {
		defer w.Close()
	}
	var late []string
	for _, c := range changes {
		if err != nil || w.changedSince(c.Path, t.toolsDone) {
			late = append(late, c.Path)
		}
	}
	return late
}

// changedSince reports whether path changed after at. A path that is gone
// has no ctime of its own: what stands for it does, the parent on its way
// that is no longer a directory (put there when it went), else its nearest
// directory still there, which changed when it was removed (another file
// created there since makes it late too, the safe side: a conflict). No
// symlink is followed: a file beyond one is not the workspace's.
func (w *workTree) changedSince(path string, at time.Time) bool {
	when, err := w.changedAt(path)
	return err != nil || when.After(at)
}

// storeLate keeps paths as the blob a turn's late ref names.
func (r *Repo) storeLate(ctx context.Context, paths []string) (string, error) {
	return r.Store(ctx, []byte(strings.Join(paths, "\x00")+"\x00"))
}

// lateSet is turn id's late paths (nil when none).
func (r *Repo) lateSet(ctx context.Context, id string) (map[string]bool, error) {
	blob, err := r.Ref(ctx, id+lateRef)
	if err != nil || blob == "" {
		return nil, err
	}
	data, err := r.Blob(ctx, blob)
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, p := range splitZ(data) {
		set[p] = true
	}
	return set, nil
}
