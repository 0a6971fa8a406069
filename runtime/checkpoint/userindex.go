package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"scv/internal/regfile"
)

// MaxUserIndexBytes bounds the user's index file that checkpoints read,
// with its shared index when it is split (an index of 100,000 files takes
// about 10 MB); a larger one is not read, and its tracked-but-ignored
// files are left out of snapshots as before.
const MaxUserIndexBytes = 64 << 20

// userIndex knows which of the workspace's files the user's own
// repository tracks, so a snapshot keeps them even where a .gitignore
// pattern matches them. Only the user's index file is read, and only if
// it is a regular file (a named pipe there would block git's open for
// ever): scv copies it, and a git that has the shadow repository as its
// GIT_DIR lists the copy. The user's config, hooks and fsmonitor are never
// read, so nothing they name can run, and nothing of the user's is
// written. The list is read again only when the index file changes.
// Guarded by Repo.mu (Snapshot's lock).
type userIndex struct {
	path   string // the index file; "" until looked for
	prefix string // the workspace relative to the user's work tree, "" or "dir/"
	stamp  indexStamp
	paths  []string // the workspace's paths it tracks
	// extra are the paths that the shadow index lacked when last listed:
	// the ones each snapshot adds by name.
	extra []string
}

// indexStamp tells whether the user's index file changed since it was
// last read, or last failed to be read (failed: the error was said then).
type indexStamp struct {
	read    bool
	failed  bool
	size    int64
	modTime time.Time
}

// refresh reads the workspace's paths the user's index tracks again when
// the index file changed (nil when the workspace is in no repository, or
// the file cannot be read: the error says why); changed reports whether
// they may differ from the last ones, so extra must be worked out again.
func (u *userIndex) refresh(ctx context.Context, g git) (changed bool, err error) {
	paths, stamp, err := u.read(ctx, g, u.stamp)
	if stamp != u.stamp {
		u.paths, u.stamp, changed = paths, stamp, true
	}
	return changed, err
}

// untracked sets extra: the user's paths that indexed lacks.
func (u *userIndex) untracked(indexed map[string]bool) {
	u.extra = nil
	for _, p := range u.paths {
		if !indexed[p] {
			u.extra = append(u.extra, p)
		}
	}
}

// read lists the user's index when it differs from was; when it does
// not, it returns was and no paths (the caller keeps its own).
func (u *userIndex) read(ctx context.Context, g git, was indexStamp) ([]string, indexStamp, error) {
	if u.path == "" {
		u.path, u.prefix = findUserIndex(g.work)
	}
	none := indexStamp{read: true}
	if u.path == "" {
		return nil, none, nil
	}
	file, info, err := regfile.Open(u.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, none, nil // a repository with no index yet
	}
	if err != nil {
		return nil, indexStamp{read: true, failed: true}, u.readError(err)
	}
	defer file.Close()
	stamp := indexStamp{read: true, size: info.Size(), modTime: info.ModTime()}
	if stamp == was {
		return nil, was, nil
	}
	failed := stamp
	failed.failed = true
	if failed == was {
		return nil, was, nil // the same file failed before
	}
	data, truncated, err := regfile.ReadAll(file, MaxUserIndexBytes)
	if err == nil && truncated {
		err = &regfile.TooLargeError{Max: MaxUserIndexBytes}
	}
	if err != nil {
		return nil, failed, u.readError(err)
	}
	out, err := listIndex(ctx, g, data, filepath.Dir(u.path))
	if err != nil {
		return nil, failed, u.readError(err)
	}
	var paths []string
	var last string
	for _, p := range splitZ(out) {
		rel, ok := strings.CutPrefix(p, u.prefix)
		if !ok || rel == last { // another directory's, or a conflict's next stage
			continue
		}
		last = rel
		paths = append(paths, rel)
	}
	return paths, stamp, nil
}

func (u *userIndex) readError(err error) error {
	return fmt.Errorf("read the files your repository tracks (%s): %w", u.path, err)
}

// maxGitFileBytes bounds a worktree's .git file, which holds one
// "gitdir:" line.
const maxGitFileBytes = 4096

// userIndexCopy is the copy of the user's index inside the shadow
// repository's git directory, there only while it is listed.
const userIndexCopy = "index.user"

// listIndex lists the paths of an index file's bytes, read from the git
// directory userGitDir (where a split index's shared index is).
func listIndex(ctx context.Context, g git, data []byte, userGitDir string) ([]byte, error) {
	id, err := sharedIndexID(data)
	if err != nil {
		return nil, err
	}
	if id != "" {
		name := sharedIndexPrefix + id
		shared, _, err := regfile.ReadFile(filepath.Join(userGitDir, name), MaxUserIndexBytes-int64(len(data)))
		if err != nil {
			return nil, fmt.Errorf("its shared index: %w", err)
		}
		sharedCopy := filepath.Join(g.gitDir, name)
		defer os.Remove(sharedCopy)
		if err := os.WriteFile(sharedCopy, shared, 0o600); err != nil {
			return nil, err
		}
	}
	copyPath := filepath.Join(g.gitDir, userIndexCopy)
	defer os.Remove(copyPath)
	if err := os.WriteFile(copyPath, data, 0o600); err != nil {
		return nil, err
	}
	return g.withIndex(copyPath).run(ctx, nil, "ls-files", "-z", "--full-name")
}

// findUserIndex returns the index of the repository the workspace work is
// in (its nearest .git, a directory or a worktree's "gitdir:" file) and
// the workspace's path inside that repository's work tree; "" when none.
func findUserIndex(work string) (index, prefix string) {
	for dir := work; ; {
		dotGit := filepath.Join(dir, ".git")
		if info, err := os.Lstat(dotGit); err == nil {
			gitDir := dotGit
			if info.Mode().IsRegular() {
				b, _, err := regfile.ReadFile(dotGit, maxGitFileBytes)
				target, ok := bytes.CutPrefix(bytes.TrimSpace(b), []byte("gitdir:"))
				if err != nil || !ok {
					return "", ""
				}
				gitDir = strings.TrimSpace(string(target))
				if !filepath.IsAbs(gitDir) {
					gitDir = filepath.Join(dir, gitDir)
				}
			}
			rel, err := filepath.Rel(dir, work)
			if err != nil {
				return "", ""
			}
			if rel = filepath.ToSlash(rel); rel == "." {
				rel = ""
			} else {
				rel += "/"
			}
			return filepath.Join(gitDir, "index"), rel
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", ""
		}
		dir = parent
	}
}
