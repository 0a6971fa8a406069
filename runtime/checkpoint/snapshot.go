package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// A snapshot is git add -A over the workspace, with two corrections:
//
// Nested repositories are left out. git add records one as a gitlink (its
// HEAD commit), and once a gitlink is in the index every later git add
// runs git status inside that repository to see whether it is dirty:
// that git reads the nested repository's own config and .gitattributes,
// so its clean filter, fsmonitor or any program its config names would
// run, unasked. Gitlinks are dropped from the index before each tree is
// written, so no git add ever finds one. git add warns of each one it
// adds (and says nothing when it adds none), so the index is listed only
// after a git add that said something. (Checkpoints never restored nested
// repositories anyway; their files were never in a snapshot.)
//
// A file the user's own repository tracks is kept although a .gitignore
// pattern matches it (see userindex.go): git add -A leaves it out of a
// new snapshot, so a shell change to it would be missing from the turn's
// changes and could not be undone. Those files are found by listing the
// index whenever the user's index changed, and added by name to every
// snapshot.

// Snapshot stores the whole workspace (ignored files left out, unless the
// user's repository tracks them) and returns its tree. A file that cannot
// be read is left out rather than failing the snapshot; the error says
// which. When git could not update the index at all, there is no tree:
// the index's would be an older snapshot's.
func (r *Repo) Snapshot(ctx context.Context) (tree string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	defer func() { r.g.releaseIndex(err) }()
	if err := r.pinInfo(); err != nil {
		return "", err
	}
	_, warned, addErr := r.g.output(ctx, nil, "add", "-A", "--ignore-errors", "--", ".")
	if fatal(addErr) {
		return "", addErr
	}
	changed, userErr := r.user.refresh(ctx, r.g)
	if len(warned) > 0 || addErr != nil || changed {
		indexed, err := r.settleIndex(ctx)
		if err != nil {
			return "", errors.Join(addErr, err)
		}
		if changed {
			r.user.untracked(indexed)
		}
	}
	trackedErr := r.addUserTracked(ctx) // on failure the index is as git add left it
	out, err := r.g.run(ctx, nil, "write-tree")
	if err != nil {
		return "", errors.Join(addErr, userErr, trackedErr, err)
	}
	return strings.TrimSpace(string(out)), errors.Join(addErr, userErr, trackedErr)
}

// settleIndex drops the index's gitlinks and returns the paths it holds.
func (r *Repo) settleIndex(ctx context.Context) (map[string]bool, error) {
	out, err := r.g.run(ctx, nil, "ls-files", "-z", "--stage")
	if err != nil {
		return nil, err
	}
	indexed := map[string]bool{}
	var gitlinks []string
	for _, line := range splitZ(out) {
		meta, path, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		if strings.HasPrefix(meta, modeGitlink+" ") {
			gitlinks = append(gitlinks, path)
			continue
		}
		indexed[path] = true
	}
	return indexed, r.removeFromIndex(ctx, gitlinks)
}

// dropGitlinks removes the index's gitlinks.
func (r *Repo) dropGitlinks(ctx context.Context) error {
	if _, err := os.Stat(filepath.Join(r.g.gitDir, "index")); err != nil {
		return nil // no snapshot yet
	}
	_, err := r.settleIndex(ctx)
	return err
}

// removeFromIndex removes paths from the index without looking at the
// work tree (git rm would check a gitlink's repository for changes).
func (r *Repo) removeFromIndex(ctx context.Context, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	_, err := r.g.run(ctx, nulList(paths), "update-index", "--force-remove", "-z", "--stdin")
	return err
}

// addUserTracked adds the files the user's repository tracks that the
// index lacked when last listed (those a .gitignore pattern matches) and
// that are in the workspace now. Once added, git add finds them unchanged
// by their stat data.
func (r *Repo) addUserTracked(ctx context.Context) error {
	present, _, err := splitPresent(r.g.work, r.withoutKeptOut(r.user.extra))
	if err != nil || len(present) == 0 {
		return err
	}
	// update-index takes each path as a name (git add would match every
	// one as a pathspec against every entry: quadratic in a committed
	// dependency tree), hashes only those whose stat data changed, and
	// writes the index only if every path could be read.
	_, err = r.g.run(ctx, nulList(present), "update-index", "--add", "-z", "--stdin")
	return err
}

// nulList is paths as NUL-terminated input.
func nulList(paths []string) *bytes.Reader {
	var b bytes.Buffer
	for _, p := range paths {
		b.WriteString(p)
		b.WriteByte(0)
	}
	return bytes.NewReader(b.Bytes())
}
