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

// MaxUserIndexBytes bounds the user's index file that checkpoints read
// (an index of 100,000 files takes about 10 MB); a larger one is not read,
// and its tracked-but-ignored files are left out of snapshots as before.
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
	path    string // the index file; "" until looked for
	prefix  string // the workspace relative to the user's work tree, "" or "dir/"
	size    int64
	modTime time.Time
	paths   []string
}

// maxGitFileBytes bounds a worktree's .git file, which holds one
// "gitdir:" line.
const maxGitFileBytes = 4096

// userIndexCopy is the copy of the user's index inside the shadow
// repository's git directory, there only while it is listed.
const userIndexCopy = "index.user"

// tracked returns the workspace's paths the user's index holds, relative
// to the workspace; nil when the workspace is in no repository.
func (u *userIndex) tracked(ctx context.Context, g git) ([]string, error) {
	if u.path == "" {
		u.path, u.prefix = findUserIndex(g.work)
	}
	file, info, err := regfile.Open(u.path)
	if errors.Is(err, fs.ErrNotExist) {
		u.paths = nil
		return nil, nil // no repository, or one with no index yet
	}
	if err != nil {
		return nil, fmt.Errorf("read the files your repository tracks (%s): %w", u.path, err)
	}
	defer file.Close()
	if info.Size() == u.size && info.ModTime().Equal(u.modTime) && u.paths != nil {
		return u.paths, nil
	}
	data, truncated, err := regfile.ReadAll(file, MaxUserIndexBytes)
	if err == nil && truncated {
		err = &regfile.TooLargeError{Max: MaxUserIndexBytes}
	}
	if err != nil {
		return nil, fmt.Errorf("read the files your repository tracks (%s): %w", u.path, err)
	}
	out, err := listIndex(ctx, g, data)
	if err != nil {
		// A split index keeps entries beside the user's index, which the
		// copy lacks: the snapshot goes on without them.
		return nil, fmt.Errorf("read the files your repository tracks (%s): %w", u.path, err)
	}
	u.paths = u.paths[:0:0]
	var last string
	for _, p := range splitZ(out) {
		rel, ok := strings.CutPrefix(p, u.prefix)
		if !ok || rel == last { // another directory's, or a conflict's next stage
			continue
		}
		last = rel
		u.paths = append(u.paths, rel)
	}
	u.size, u.modTime = info.Size(), info.ModTime()
	return u.paths, nil
}

// listIndex lists the paths of an index file's bytes.
func listIndex(ctx context.Context, g git, data []byte) ([]byte, error) {
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
