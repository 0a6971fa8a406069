package checkpoint

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// userIndex knows which of the workspace's files the user's own
// repository tracks, so a snapshot keeps them even where a .gitignore
// pattern matches them. It reads only the user's index file, through a
// git that has the shadow repository as its GIT_DIR (GIT_INDEX_FILE names
// the user's index): the user's config, hooks and fsmonitor are never
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

// tracked returns the workspace's paths the user's index holds, relative
// to the workspace; nil when the workspace is in no repository.
func (u *userIndex) tracked(ctx context.Context, g git) ([]string, error) {
	if u.path == "" {
		u.path, u.prefix = findUserIndex(g.work)
	}
	info, err := os.Stat(u.path)
	if err != nil {
		u.paths = nil
		return nil, nil // no repository, or one with no index yet
	}
	if info.Size() == u.size && info.ModTime().Equal(u.modTime) && u.paths != nil {
		return u.paths, nil
	}
	out, err := g.withIndex(u.path).run(ctx, nil, "ls-files", "-z", "--full-name")
	if err != nil {
		// A split index keeps entries beside the user's index, where this
		// git does not look: the snapshot goes on without them.
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

// findUserIndex returns the index of the repository the workspace work is
// in (its nearest .git, a directory or a worktree's "gitdir:" file) and
// the workspace's path inside that repository's work tree; "" when none.
func findUserIndex(work string) (index, prefix string) {
	for dir := work; ; {
		dotGit := filepath.Join(dir, ".git")
		if info, err := os.Lstat(dotGit); err == nil {
			gitDir := dotGit
			if info.Mode().IsRegular() {
				b, err := os.ReadFile(dotGit)
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
