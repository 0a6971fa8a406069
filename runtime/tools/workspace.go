package tools

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// maxSymlinkHops bounds how many dangling symlinks Resolve follows by hand
// before giving up, the same order as the kernel's own loop limit.
const maxSymlinkHops = 40

// Workspace is the directory tree the tools may touch. Every path a tool
// receives goes through Resolve, so nothing outside the root is read,
// written or listed.
type Workspace struct {
	root string
}

// NewWorkspace confines tools to root, which must be an absolute path to an
// existing directory. The root is stored with its symlinks resolved so that
// containment checks compare real paths.
func NewWorkspace(root string) (*Workspace, error) {
	if !filepath.IsAbs(root) {
		return nil, fmt.Errorf("workspace root %q is not an absolute path", root)
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("workspace root %q: %w", root, err)
	}
	info, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("workspace root %q: %w", root, err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("workspace root %q is not a directory", root)
	}
	return &Workspace{root: filepath.Clean(real)}, nil
}

// Root is the workspace directory with its symlinks resolved.
func (w *Workspace) Root() string { return w.root }

// Resolve maps a path given by the model or an editor to a real absolute
// path inside the workspace. Relative paths start at the root; absolute
// paths must point inside it. Symlinks along the existing part of the path
// are resolved (dangling ones by hand), so a file that does not exist yet
// resolves through its parent and a link cannot smuggle a write outside.
// ".." is applied to the text first, as filepath.Clean does; the returned
// path is the one to use, so a link named before ".." cannot lead astray.
func (w *Workspace) Resolve(path string) (string, error) {
	if path == "" {
		return "", errors.New("empty path")
	}
	if strings.IndexByte(path, 0) >= 0 {
		return "", fmt.Errorf("path %q contains a NUL byte", path)
	}
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(w.root, abs)
	}
	real, err := resolveExisting(filepath.Clean(abs), maxSymlinkHops)
	if err != nil {
		return "", fmt.Errorf("path %q: %w", path, err)
	}
	if !w.contains(real) {
		return "", fmt.Errorf("path %q is outside the workspace", path)
	}
	return real, nil
}

// Rel names a resolved path relative to the root with forward slashes, the
// form tool output uses. The root itself is ".".
func (w *Workspace) Rel(real string) string {
	rel, err := filepath.Rel(w.root, real)
	if err != nil {
		return real
	}
	return filepath.ToSlash(rel)
}

func (w *Workspace) contains(real string) bool {
	if real == w.root {
		return true
	}
	prefix := w.root
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	return strings.HasPrefix(real, prefix)
}

// resolveExisting resolves the symlinks of the longest existing prefix of a
// clean absolute path and appends the components that do not exist yet.
func resolveExisting(abs string, hops int) (string, error) {
	prefix, rest := abs, []string(nil)
	for {
		if _, err := os.Lstat(prefix); err == nil {
			break
		}
		parent := filepath.Dir(prefix)
		if parent == prefix {
			// Not even the filesystem root can be stat'ed: nothing to resolve.
			return abs, nil
		}
		rest = append(rest, filepath.Base(prefix))
		prefix = parent
	}
	real, err := filepath.EvalSymlinks(prefix)
	if err != nil {
		// Every component but the last exists and is a directory, so only
		// the last one can be a dangling link. Follow it ourselves: writing
		// through it would otherwise create its target wherever it points.
		info, lerr := os.Lstat(prefix)
		if lerr != nil || info.Mode()&os.ModeSymlink == 0 {
			return "", err
		}
		if hops <= 0 {
			return "", errors.New("too many levels of symbolic links")
		}
		target, rerr := os.Readlink(prefix)
		if rerr != nil {
			return "", rerr
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(prefix), target)
		}
		real, err = resolveExisting(filepath.Clean(target), hops-1)
		if err != nil {
			return "", err
		}
	}
	for i := len(rest) - 1; i >= 0; i-- {
		real = filepath.Join(real, rest[i])
	}
	return real, nil
}
