package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// swapRounds is how many tool calls race the swapper per tool. The old
// check-then-open code let roughly one call in seven escape, so a few
// hundred rounds catch it every time; with os.Root no round can.
const swapRounds = 400

// swapper keeps replacing the workspace directory sub with a symlink to an
// outside directory and back, until stopped.
type swapper struct {
	stop chan struct{}
	done sync.WaitGroup
	errs []error
}

func startSwapper(t *testing.T, root, outside string) *swapper {
	t.Helper()
	sub, parked := filepath.Join(root, "sub"), filepath.Join(root, "sub.parked")
	s := &swapper{stop: make(chan struct{})}
	s.done.Add(1)
	go func() {
		defer s.done.Done()
		for {
			select {
			case <-s.stop:
				return
			default:
			}
			// A write may recreate sub while it is parked; such a stray
			// directory is inside the workspace and simply cleared away.
			steps := []func() error{
				func() error { return os.Rename(sub, parked) },
				func() error { return os.Symlink(outside, sub) },
				func() error { return os.Remove(sub) },
				func() error { return os.Rename(parked, sub) },
			}
			for _, step := range steps {
				if err := retryStray(sub, step); err != nil {
					s.errs = append(s.errs, err)
					return
				}
			}
		}
	}()
	t.Cleanup(s.halt)
	return s
}

// retryStray runs step, first clearing away a directory at sub that a
// tool call recreated while sub was parked. Calls may recreate it again at
// any moment, so this is tried a bounded number of times.
func retryStray(sub string, step func() error) error {
	var err error
	for range 1000 {
		if err = step(); err == nil || !errors.Is(err, fs.ErrExist) {
			return err
		}
		_ = os.RemoveAll(sub)
	}
	return err
}

// halt stops the swapper and waits for it; the directory is back in place.
func (s *swapper) halt() {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	s.done.Wait()
}

// TestSymlinkSwapRace: a process racing the tools by swapping a workspace
// directory for a symlink to an outside one never gets them to read,
// list, search or write outside the workspace.
func TestSymlinkSwapRace(t *testing.T) {
	ws := newTestWorkspace(t)
	root := ws.Root()
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const secret = "OUTSIDE-SECRET"
	writeFiles(t, root, map[string]string{"sub/f.txt": "inside\n"})
	writeFiles(t, outside, map[string]string{"f.txt": secret + "\n", "only-outside.txt": secret + "\n"})
	limits := testLimits()
	reads := []struct {
		tool string
		args map[string]any
	}{
		{"read_file", map[string]any{"path": "sub/f.txt"}},
		{"list_dir", map[string]any{"path": "sub"}},
		{"grep", map[string]any{"pattern": "S", "path": "sub"}},
		{"grep", map[string]any{"pattern": "S"}},
		{"glob", map[string]any{"pattern": "sub/*"}},
		{"glob", map[string]any{"pattern": "**/*.txt"}},
	}
	for _, r := range reads {
		tool := toolNamed(t, ws, limits, r.tool)
		s := startSwapper(t, root, outside)
		for range swapRounds {
			res := run(t, tool, r.args)
			if strings.Contains(res.Output, secret) || strings.Contains(res.Output, "only-outside") {
				s.halt()
				t.Fatalf("%s %v returned outside content: %q", r.tool, r.args, res.Output)
			}
		}
		s.halt()
		if len(s.errs) > 0 {
			t.Fatalf("swapper: %v", s.errs)
		}
	}

	writes := []struct {
		tool string
		args map[string]any
	}{
		{"write_file", map[string]any{"path": "sub/f.txt", "content": "written\n"}},
		{"write_file", map[string]any{"path": "sub/new.txt", "content": "written\n"}},
		{"write_file", map[string]any{"path": "sub/deep/new.txt", "content": "written\n"}},
		{"edit_file", map[string]any{"path": "sub/f.txt", "old": "\n", "new": "\n\n", "replace_all": true}},
	}
	for _, w := range writes {
		tool := toolNamed(t, ws, limits, w.tool)
		s := startSwapper(t, root, outside)
		for range swapRounds {
			run(t, tool, w.args)
		}
		s.halt()
		if len(s.errs) > 0 {
			t.Fatalf("swapper: %v", s.errs)
		}
		entries, err := os.ReadDir(outside)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if strings.Join(names, ",") != "f.txt,only-outside.txt" {
			t.Fatalf("%s %v created files outside the workspace: %v", w.tool, w.args, names)
		}
		if got := readBack(t, filepath.Join(outside, "f.txt")); got != secret+"\n" {
			t.Fatalf("%s %v wrote outside the workspace: %q", w.tool, w.args, got)
		}
	}
	// Writes that lost the race leave no temporary files behind.
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), tempPrefix) {
			t.Errorf("temporary file left behind: %s", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
