// Package checkpoint keeps what a workspace looked like before and after
// each agent turn, outside the workspace, so a turn can be reviewed and
// undone without touching the user's own repository.
//
// A session's checkpoints live in a shadow git repository under
// $SCV_HOME/checkpoints/<session>: its git directory is there and its work
// tree is the workspace. Git gives what undo needs for free: content
// addressed storage that copies an unchanged file once, an index whose stat
// cache makes a snapshot of a large workspace cost a walk rather than a
// read, and the workspace's .gitignore files (node_modules and build output
// are not copied). The user's .git is never written, and its config is
// never read: every git process gets GIT_DIR and GIT_WORK_TREE, the fixed
// configuration below and no other, and the attributes of attributes.go,
// which outrank the workspace's .gitattributes. Nested repositories are
// left out of snapshots (snapshot.go), so git never runs inside one.
package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// gitConfig pins every setting that could make a snapshot differ from the
// bytes on disk or run a program, whatever the environment holds. Besides
// these, git reads only the shadow repository's own config, which git init
// wrote and nothing else writes: env drops every GIT_* variable (so no
// GIT_CONFIG_PARAMETERS, GIT_CONFIG_COUNT or GIT_EXEC_PATH reaches git) and
// the system and global config files. A work tree supplies no config (a
// nested repository's is read only by a git running inside it, which
// snapshot.go prevents), only attributes, which attributes.go overrides.
var gitConfig = []string{
	// Programs git could run: hooks, a file system monitor, a pager, an
	// external diff (textconv and filter drivers need config, and
	// attributes.go unsets the attributes that would pick them).
	"-c", "core.hooksPath=/dev/null",
	"-c", "core.fsmonitor=false",
	"-c", "core.pager=cat",
	"-c", "diff.external=",
	"-c", "protocol.allow=never",
	// Bytes in, bytes out: no line-ending conversion (attributes.go does
	// the same for .gitattributes), no attributes file besides ours.
	"-c", "core.autocrlf=false",
	"-c", "core.safecrlf=false",
	"-c", "core.eol=lf",
	"-c", "core.attributesFile=/dev/null",
	"-c", "core.symlinks=true",
	// Nested repositories: a gitlink's diff is its commit, never a log
	// read from the nested repository.
	"-c", "diff.submodule=short",
	"-c", "submodule.recurse=false",
	// One plain index file of ours: a split or sparse one keeps parts of
	// itself elsewhere.
	"-c", "core.splitIndex=false",
	"-c", "index.sparse=false",
	"-c", "core.quotepath=false",
	"-c", "core.untrackedCache=true",
	"-c", "index.version=4", // a smaller index to read and write per snapshot
	"-c", "core.preloadIndex=true",
	"-c", "gc.auto=0",
	// Fast zlib: a snapshot of a large file is bound by compression, and
	// level 1 costs a fifth of the default's time for a slightly larger
	// object.
	"-c", "core.looseCompression=1",
	"-c", "maintenance.auto=false",
	"-c", "advice.addEmbeddedRepo=false",
	"-c", "diff.noprefix=false",
	"-c", "color.ui=false",
}

// MaxGitWait bounds one git command of a checkpoint. Git opens every
// .gitignore and .gitattributes it meets by name, and the open of a named
// pipe waits for a writer for ever (nothing in git's config avoids it),
// as does a read on a stalled file system: without a bound, the turn's
// checkpoint, and the session's queue behind it, would wait with it. The
// first snapshot of a workspace at checkpoints.max_bytes takes seconds.
const MaxGitWait = 10 * time.Minute

// git runs one git command against the shadow repository.
type git struct {
	gitDir  string
	work    string
	index   string        // GIT_INDEX_FILE; empty: the repository's own
	maxWait time.Duration // 0: MaxGitWait (tests shorten it)
}

func (g git) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GIT_") || strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"GIT_DIR="+g.gitDir,
		"GIT_WORK_TREE="+g.work,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_ATTR_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_NO_REPLACE_OBJECTS=1",
		"GIT_LITERAL_PATHSPECS=1",
		"HOME="+g.gitDir,
		"XDG_CONFIG_HOME="+g.gitDir,
		"LC_ALL=C",
	)
	if g.index != "" {
		env = append(env, "GIT_INDEX_FILE="+g.index)
	}
	return env
}

// gitPipeWait is how long a git's output is read after the git was
// killed: a process it started that still holds the pipe must not keep
// the caller waiting.
const gitPipeWait = time.Second

// command is git with args, killed with every process it started (its
// process group) when ctx ends: the caller's (a session closing, the
// process shutting down) or MaxGitWait.
func (g git) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", append(append([]string(nil), gitConfig...), args...)...)
	cmd.Env = g.env()
	cmd.Dir = g.work
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = gitPipeWait
	return cmd
}

// run returns the command's stdout; its stderr is in the error.
func (g git) run(ctx context.Context, stdin io.Reader, args ...string) ([]byte, error) {
	stdout, _, err := g.output(ctx, stdin, args...)
	return stdout, err
}

// output is run that also returns what git said on stderr when it
// succeeded (warnings).
func (g git) output(ctx context.Context, stdin io.Reader, args ...string) (stdout, stderr []byte, err error) {
	var out bytes.Buffer
	stderr, err = g.stream(ctx, stdin, &out, args...)
	if err != nil {
		return nil, nil, err
	}
	return out.Bytes(), stderr, nil
}

// stream runs git with its stdout written to out, bounded by MaxGitWait,
// and returns what it said on stderr.
func (g git) stream(ctx context.Context, stdin io.Reader, out io.Writer, args ...string) ([]byte, error) {
	wait := g.maxWait
	if wait == 0 {
		wait = MaxGitWait
	}
	bounded, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	cmd := g.command(bounded, args...)
	cmd.Stdin = stdin
	var errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = out, &errOut
	if err := cmd.Run(); err != nil {
		if ctx.Err() == nil && bounded.Err() != nil {
			return nil, fmt.Errorf("git %s did not finish within %v and was stopped (a named pipe called .gitignore or .gitattributes in the workspace, or a stalled file system, keeps git waiting): %w (%w)", args[0], wait, err, errStopped)
		}
		if bounded.Err() != nil {
			return nil, fmt.Errorf("git %s: %w (%w)", args[0], err, errStopped)
		}
		return nil, fmt.Errorf("git %s: %w: %s", args[0], err, strings.TrimSpace(errOut.String()))
	}
	return errOut.Bytes(), nil
}

// errStopped is in the error of a git killed before it finished (at
// MaxGitWait, or as its caller stopped): it may have left its lock files.
var errStopped = errors.New("stopped")

// releaseIndex removes the lock of g's index that a stopped git left, so
// the next command can take it; err is the command's. The caller holds
// Repo.mu, so no live git holds that lock.
func (g git) releaseIndex(err error) {
	if !errors.Is(err, errStopped) {
		return
	}
	index := g.index
	if index == "" {
		index = filepath.Join(g.gitDir, "index")
	}
	os.Remove(index + ".lock")
}

// withIndex is g using a separate index file.
func (g git) withIndex(path string) git {
	g.index = path
	return g
}

// splitZ splits NUL-terminated output.
func splitZ(b []byte) []string {
	s := strings.TrimSuffix(string(b), "\x00")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\x00")
}
