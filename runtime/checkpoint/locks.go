package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// clearStaleLocks removes the lock files a process killed in the middle
// of a git command left in gitDir: with one in place every later
// snapshot would fail. Only the process that owns a session opens its
// checkpoints (it holds the session's log), and it serialises its own git
// commands, so at open no lock can belong to a live command.
func clearStaleLocks(gitDir string) error {
	var errs []error
	for _, name := range []string{"index.lock", "index.extend", "index.extend.lock", "packed-refs.lock", "HEAD.lock"} {
		if err := os.Remove(filepath.Join(gitDir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	err := filepath.WalkDir(filepath.Join(gitDir, "refs"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".lock") {
			err = os.Remove(path)
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	})
	if err := errors.Join(append(errs, err)...); err != nil {
		return fmt.Errorf("clear the stale locks of %s: %w", gitDir, err)
	}
	return nil
}

// fatal reports whether git died (exit status 128, or killed: see
// MaxGitWait) rather than finishing with some paths not added (exit
// status 1 under --ignore-errors).
func fatal(err error) bool {
	var exit *exec.ExitError
	return errors.As(err, &exit) && (exit.ExitCode() == 128 || exit.ExitCode() == -1)
}
