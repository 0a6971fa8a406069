package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Turn is the checkpoint of one running turn: the workspace before its
// first change, widened as its file tools reach files the snapshot left
// out (ignored ones, or every file when the workspace is too large).
type Turn struct {
	repo   *Repo
	id     string
	before string
	known  map[string]bool // paths in before; nil until a file tool needs it
	forced []string        // file tools' paths the snapshots may leave out: the after takes them by name
	whole  bool            // before is a whole snapshot, so shell changes are covered
	// toolsDone is when the turn's last tool that may change files ended
	// (see late.go).
	toolsDone time.Time
	// leftOut says what a snapshot of the turn left out (files it could
	// not read, the user's index it could not list): their changes have
	// no undo. The snapshot itself succeeded.
	leftOut error
}

// LeftOut says what the turn's checkpoint left out, nil when nothing:
// the caller logs it.
func (t *Turn) LeftOut() error { return t.leftOut }

// Begin takes turn id's checkpoint: a whole snapshot when whole is set,
// else an empty one that Touch fills path by path.
func (r *Repo) Begin(ctx context.Context, id string, whole bool) (*Turn, error) {
	if !ValidTurnID(id) {
		return nil, fmt.Errorf("checkpoint before turn %q: not a turn id", id)
	}
	t := &Turn{repo: r, id: id, before: EmptyTree, whole: whole, toolsDone: time.Now()}
	if whole {
		tree, err := r.Snapshot(ctx)
		if tree == "" {
			return nil, fmt.Errorf("checkpoint before turn %s: %w", id, err)
		}
		t.before, t.leftOut = tree, err
	}
	return t, nil
}

// Whole reports whether the checkpoint covers the whole workspace.
func (t *Turn) Whole() bool { return t.whole }

// Touch is called before a file tool writes path (relative to the
// workspace): a file the checkpoint does not hold yet is added as it is
// now, so the turn's change to it can be undone.
func (t *Turn) Touch(ctx context.Context, path string) error {
	if t.known == nil {
		// Listed once per turn, and only for turns using file tools.
		entries, err := t.repo.Entries(ctx, t.before)
		if err != nil {
			return err
		}
		t.known = make(map[string]bool, len(entries))
		for p := range entries {
			t.known[p] = true
		}
	}
	if t.known[path] {
		return nil
	}
	t.known[path] = true
	if _, err := os.Lstat(filepath.Join(t.repo.g.work, path)); err != nil {
		// Absent before: the turn creates it. The after snapshot would
		// leave it out where a .gitignore pattern matches it, so it is
		// added by name, as are the others.
		t.forced = append(t.forced, path)
		return nil
	}
	tree, err := t.repo.Extend(ctx, t.before, []string{path})
	if tree == "" {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	t.before = tree
	t.forced = append(t.forced, path)
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return nil
}

// Finish snapshots the workspace after the turn, keeps both trees under
// the turn's refs when anything changed, and returns the changes.
func (t *Turn) Finish(ctx context.Context) ([]Change, error) {
	after := EmptyTree
	if t.whole {
		tree, err := t.repo.Snapshot(ctx)
		if tree == "" {
			return nil, fmt.Errorf("checkpoint after turn %s: %w", t.id, err)
		}
		after, t.leftOut = tree, errors.Join(t.leftOut, err)
	}
	// A forced path git cannot store has no undo (Touch said so of one
	// that was there before); the others are still the turn's changes.
	after, err := t.repo.Extend(ctx, after, t.forced)
	if after == "" {
		return nil, fmt.Errorf("checkpoint after turn %s: %w", t.id, err)
	}
	t.leftOut = errors.Join(t.leftOut, err)
	changes, err := t.repo.Changes(ctx, t.before, after)
	if err != nil || len(changes) == 0 {
		return nil, err
	}
	refs := map[string]string{t.id + "/before": t.before, t.id + "/after": after}
	if late := t.late(changes); len(late) > 0 {
		if refs[t.id+lateRef], err = t.repo.storeLate(ctx, late); err != nil {
			return nil, err
		}
	}
	return changes, t.repo.setRefs(ctx, refs)
}

// trees returns turn id's before and after trees; ok is false when the
// turn changed nothing (or its checkpoints are gone), or id is no turn
// id (refs.go).
func (r *Repo) trees(ctx context.Context, id string) (before, after string, ok bool, err error) {
	if !ValidTurnID(id) {
		return "", "", false, nil
	}
	if before, err = r.Ref(ctx, id+"/before"); err != nil || before == "" {
		return "", "", false, err
	}
	if after, err = r.Ref(ctx, id+"/after"); err != nil || after == "" {
		return "", "", false, err
	}
	return before, after, true, nil
}

// Has reports whether turn id has changes on record.
func (r *Repo) Has(ctx context.Context, id string) bool {
	_, _, ok, _ := r.trees(ctx, id)
	return ok
}

// FileDiff is one changed file of a turn as a reviewer sees it.
type FileDiff struct {
	Path   string
	Diff   string
	Binary bool
	// Before and After are the full texts (only when asked for one path);
	// nil for a side where the file is absent, binary or too large.
	Before, After *string
}

// MaxDiffBytes bounds one file's diff in a turn's changes.
const MaxDiffBytes = 1 << 20

// MaxTextBytes bounds a side's full text in a one-file answer.
const MaxTextBytes = 4 << 20

// TurnChanges lists what turn id changed, with a diff per file; with path
// only that file, with its texts before and after.
func (r *Repo) TurnChanges(ctx context.Context, id, path string) ([]FileDiff, bool, error) {
	before, after, ok, err := r.trees(ctx, id)
	if !ok || err != nil {
		return nil, false, err
	}
	changes, err := r.Changes(ctx, before, after)
	if err != nil {
		return nil, true, err
	}
	files := []FileDiff{}
	for _, c := range changes {
		if path != "" && c.Path != path {
			continue
		}
		diff, err := r.Diff(ctx, before, after, c.Path, MaxDiffBytes)
		if err != nil {
			return nil, true, err
		}
		f := FileDiff{Path: c.Path, Diff: diff, Binary: c.Binary}
		if path != "" && !c.Binary {
			if f.Before, err = r.text(ctx, before, c.Path); err == nil {
				f.After, err = r.text(ctx, after, c.Path)
			}
			if err != nil {
				return nil, true, err
			}
		}
		files = append(files, f)
	}
	return files, true, nil
}

func (r *Repo) text(ctx context.Context, tree, path string) (*string, error) {
	entries, err := r.Entries(ctx, tree, path)
	if err != nil {
		return nil, err
	}
	e, ok := entries[path]
	if !ok || e.Mode == modeGitlink {
		return nil, nil
	}
	out, err := r.g.run(ctx, nil, "cat-file", "-s", e.Hash)
	if err != nil {
		return nil, err
	}
	var size int
	fmt.Sscan(string(out), &size)
	if size > MaxTextBytes {
		return nil, nil
	}
	data, err := r.Blob(ctx, e.Hash)
	if err != nil {
		return nil, err
	}
	s := string(data)
	return &s, nil
}

// Plan works out the targets that undo turns ids (oldest first): each file
// any of them changed goes back to what it was before the first of them
// that changed it, and is expected to be what the last of them left.
func (r *Repo) Plan(ctx context.Context, ids []string) ([]Target, error) {
	byPath := map[string]*Target{}
	var order []string
	for _, id := range ids {
		before, after, ok, err := r.trees(ctx, id)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		changes, err := r.Changes(ctx, before, after)
		if err != nil {
			return nil, err
		}
		paths := make([]string, len(changes))
		for i, c := range changes {
			paths[i] = c.Path
		}
		was, err := r.Entries(ctx, before, paths...)
		if err != nil {
			return nil, err
		}
		now, err := r.Entries(ctx, after, paths...)
		if err != nil {
			return nil, err
		}
		late, err := r.lateSet(ctx, id)
		if err != nil {
			return nil, err
		}
		for _, p := range r.withoutKeptOut(paths) {
			t, seen := byPath[p]
			if !seen {
				t = &Target{Path: p, Want: entryPtr(was, p)}
				byPath[p] = t
				order = append(order, p)
			}
			t.Left, t.Late = entryPtr(now, p), late[p]
		}
	}
	targets := make([]Target, len(order))
	for i, p := range order {
		targets[i] = *byPath[p]
	}
	return targets, nil
}

func entryPtr(m map[string]Entry, p string) *Entry {
	if e, ok := m[p]; ok {
		return &e
	}
	return nil
}
