package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// EmptyTree is git's tree with no entries: the "before" of a turn that
// only created files in a workspace too large to snapshot whole.
const EmptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// Repo is one session's shadow repository. Its methods may be called from
// several goroutines; git commands that write the index are serialised.
type Repo struct {
	dir string // $SCV_HOME/checkpoints/<session>
	g   git
	mu  sync.Mutex // one index writer at a time
	// user is what the user's own repository tracks; guarded by mu.
	user userIndex
	// keepOut are the directories of the workspace no snapshot holds
	// (keepout.go), slash-separated; exclude lists them for git.
	keepOut []string
	exclude string
}

// gitDirName is the shadow git directory inside a session's directory.
const gitDirName = "git"

// open returns the repository in dir for workspace, creating it when absent.
func open(ctx context.Context, dir, workspace string, keepOut []string) (*Repo, error) {
	r := &Repo{dir: dir, g: git{gitDir: filepath.Join(dir, gitDirName), work: workspace}}
	r.keepOut, r.exclude = keptOutOf(workspace, keepOut)
	if _, err := os.Stat(filepath.Join(r.g.gitDir, "HEAD")); err == nil {
		if err := clearStaleLocks(r.g.gitDir); err != nil {
			return nil, err
		}
		if err := r.pinInfo(); err != nil {
			return nil, err
		}
		// An index written before nested repositories were left out may
		// hold gitlinks, which the next snapshot's git add would run git
		// status in.
		return r, r.dropGitlinks(ctx)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create checkpoint directory: %w", err)
	}
	if _, err := r.g.run(ctx, nil, "init", "-q"); err != nil {
		return nil, fmt.Errorf("create checkpoint repository in %s: %w", dir, err)
	}
	return r, r.pinInfo()
}

// Fresh reports whether no snapshot was taken yet (the index is absent):
// the first snapshot reads every file, the later ones only changed ones.
func (r *Repo) Fresh() bool {
	_, err := os.Stat(filepath.Join(r.g.gitDir, "index"))
	return errors.Is(err, os.ErrNotExist)
}

// PendingBytes is the size of the files the next whole snapshot would
// read that the index does not know: on a fresh repository, the
// workspace's size as checkpoints count it (ignored files left out).
func (r *Repo) PendingBytes(ctx context.Context) (int64, error) {
	out, err := r.g.run(ctx, nil, "ls-files", "-z", "--others", "--modified", "--exclude-standard")
	if err != nil {
		return 0, err
	}
	var n int64
	for _, p := range splitZ(out) {
		if info, err := os.Lstat(filepath.Join(r.g.work, p)); err == nil && info.Mode().IsRegular() {
			n += info.Size()
		}
	}
	return n, nil
}

// Extend returns base with paths set to their content on disk now (or
// removed when absent), ignored or not: a file tool's target is covered
// even where .gitignore, or a workspace too large to snapshot, leaves it
// out of Snapshot. A path git could not store is left out, and the error
// says which, with the tree of the others.
func (r *Repo) Extend(ctx context.Context, base string, paths []string) (tree string, err error) {
	if len(paths) == 0 {
		return base, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	idx := filepath.Join(r.g.gitDir, "index.extend")
	defer os.Remove(idx)
	g := r.g.withIndex(idx)
	defer func() { g.releaseIndex(err) }()
	if err := r.pinInfo(); err != nil {
		return "", err
	}
	if _, err := g.run(ctx, nil, "read-tree", base); err != nil {
		return "", err
	}
	present, absent, err := splitPresent(r.g.work, r.withoutKeptOut(paths))
	if err != nil {
		return "", err
	}
	var addErr error
	if len(present) > 0 {
		// A file git cannot store (a name it refuses such as git~1 or
		// .GIT, a file it cannot read) is left out, not the others.
		_, addErr = g.run(ctx, nil, append([]string{"add", "-f", "--ignore-errors", "--"}, present...)...)
		if fatal(addErr) {
			return "", addErr
		}
	}
	if len(absent) > 0 {
		if _, err := g.run(ctx, nil, append([]string{"rm", "-q", "-r", "--cached", "--ignore-unmatch", "--"}, absent...)...); err != nil {
			return "", err
		}
	}
	out, err := g.run(ctx, nil, "write-tree")
	if err != nil {
		return "", errors.Join(addErr, err)
	}
	return strings.TrimSpace(string(out)), addErr
}

// Entry is a file in a tree.
type Entry struct {
	Mode string // git's: 100644, 100755, 120000 (a symlink), 160000 (a nested repository)
	Hash string
}

// maxPathArgs is how many paths a git command gets on its command line;
// more (a turn that changed a whole dependency tree) would pass the
// system's argument limit, so the whole tree is listed and filtered.
const maxPathArgs = 1000

// Entries lists tree's files, or only those under paths when given.
func (r *Repo) Entries(ctx context.Context, tree string, paths ...string) (map[string]Entry, error) {
	if len(paths) > maxPathArgs {
		all, err := r.Entries(ctx, tree)
		if err != nil {
			return nil, err
		}
		some := make(map[string]Entry, len(paths))
		for _, p := range paths {
			if e, ok := all[p]; ok {
				some[p] = e
			}
		}
		return some, nil
	}
	args := append([]string{"ls-tree", "-r", "-z", "--full-tree", tree, "--"}, paths...)
	out, err := r.g.run(ctx, nil, args...)
	if err != nil {
		return nil, err
	}
	entries := map[string]Entry{}
	for _, line := range splitZ(out) {
		meta, path, ok := strings.Cut(line, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			return nil, fmt.Errorf("git ls-tree: unexpected line %q", line)
		}
		entries[path] = Entry{Mode: f[0], Hash: f[2]}
	}
	return entries, nil
}

// Change is one file that differs between two trees.
type Change struct {
	Path    string
	Added   int
	Removed int
	Binary  bool
}

// Changes lists the files that differ between before and after.
func (r *Repo) Changes(ctx context.Context, before, after string) ([]Change, error) {
	out, err := r.g.run(ctx, nil, "diff-tree", "-r", "-z", "--numstat", "--no-renames", before, after)
	if err != nil {
		return nil, err
	}
	var changes []Change
	for _, rec := range splitZ(out) {
		f := strings.SplitN(rec, "\t", 3)
		if len(f) != 3 {
			return nil, fmt.Errorf("git diff-tree: unexpected record %q", rec)
		}
		c := Change{Path: f[2], Binary: f[0] == "-"}
		c.Added, _ = strconv.Atoi(f[0])
		c.Removed, _ = strconv.Atoi(f[1])
		changes = append(changes, c)
	}
	return changes, nil
}

// Diff is the unified diff of path from before to after, cut at
// maxBytes with a line saying so.
func (r *Repo) Diff(ctx context.Context, before, after, path string, maxBytes int) (string, error) {
	out, err := r.g.run(ctx, nil, "diff", "--no-color", "--no-ext-diff", "--no-textconv", "--no-renames", before, after, "--", path)
	if err != nil {
		return "", err
	}
	return capDiff(out, maxBytes), nil
}

// DiffBlobs is the unified diff between two blobs (EmptyBlob for a side
// where the file does not exist), labelled with path.
func (r *Repo) DiffBlobs(ctx context.Context, from, to, path string, maxBytes int) (string, error) {
	if from == to {
		return "", nil
	}
	if from == EmptyBlob || to == EmptyBlob {
		// git knows the empty tree without storing it, not the empty blob.
		if _, err := r.Store(ctx, nil); err != nil {
			return "", err
		}
	}
	out, err := r.g.run(ctx, nil, "diff", "--no-color", "--no-ext-diff", "--no-textconv", from, to)
	if err != nil {
		return "", err
	}
	out = bytes.ReplaceAll(out, []byte("a/"+from), []byte("a/"+path))
	out = bytes.ReplaceAll(out, []byte("b/"+to), []byte("b/"+path))
	return capDiff(out, maxBytes), nil
}

func capDiff(out []byte, maxBytes int) string {
	if maxBytes > 0 && len(out) > maxBytes {
		cut := bytes.LastIndexByte(out[:maxBytes], '\n') + 1
		return string(out[:cut]) + fmt.Sprintf("[diff cut at %d bytes of %d]\n", cut, len(out))
	}
	return string(out)
}

// Blob returns a stored file's bytes.
func (r *Repo) Blob(ctx context.Context, hash string) ([]byte, error) {
	return r.g.run(ctx, nil, "cat-file", "blob", hash)
}

// Store writes data as a blob and returns its hash (a file's content
// now, kept so a conflict can be diffed).
func (r *Repo) Store(ctx context.Context, data []byte) (string, error) {
	out, err := r.g.run(ctx, bytes.NewReader(data), "hash-object", "-w", "--stdin")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}
