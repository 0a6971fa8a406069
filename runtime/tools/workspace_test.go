package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNewWorkspace(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"file": "x"})
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}

	ws, err := NewWorkspace(link)
	if err != nil {
		t.Fatalf("NewWorkspace(%s): %v", link, err)
	}
	if ws.Root() != real {
		t.Fatalf("Root() = %s, want the resolved %s", ws.Root(), real)
	}
	// A path spelled through the symlinked root is still inside.
	got, err := ws.Resolve(filepath.Join(link, "file"))
	if err != nil || got != filepath.Join(real, "file") {
		t.Fatalf("Resolve through symlinked root = %q, %v", got, err)
	}

	for _, bad := range []string{"relative/dir", filepath.Join(dir, "missing"), filepath.Join(dir, "file")} {
		if _, err := NewWorkspace(bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("NewWorkspace(%q) error = %v, want one naming the path", bad, err)
		}
	}
}

func TestResolve(t *testing.T) {
	ws := newTestWorkspace(t)
	root := ws.Root()
	outside := t.TempDir()
	writeFiles(t, root, map[string]string{"a.txt": "a", "dir/b.txt": "b"})
	writeFiles(t, outside, map[string]string{"secret": "s"})
	links := map[string]string{
		"etc":          "/etc",
		"out":          outside,
		"in":           "dir",
		"dangling_out": filepath.Join(outside, "created-by-write"),
		"dangling_in":  "dir/new.txt",
		"chain":        "dangling_in",
		"loop":         "loop",
		"dir/up":       "..",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}

	tests := []struct {
		path string
		want string // relative to root; "" means refused
	}{
		{"a.txt", "a.txt"},
		{".", "."},
		{"dir/../a.txt", "a.txt"},
		{"./dir//b.txt", "dir/b.txt"},
		{filepath.Join(root, "dir/b.txt"), "dir/b.txt"},
		{"new/deep/file.txt", "new/deep/file.txt"},
		{"in/b.txt", "dir/b.txt"},
		{"in/not-yet.txt", "dir/not-yet.txt"},
		{"dir/up/a.txt", "a.txt"},
		{"dangling_in", "dir/new.txt"},
		{"chain", "dir/new.txt"},
		{"../x", ""},
		{"dir/../../x", ""},
		{"..", ""},
		{outside, ""},
		{filepath.Join(outside, "secret"), ""},
		{"/etc/passwd", ""},
		{"etc/passwd", ""},
		{"etc", ""},
		{"out/secret", ""},
		{"out/not-yet", ""},
		{"dangling_out", ""},
		{"dir/up/../x", "dir/x"}, // ".." is applied to the text first, like filepath.Clean
		{"loop", ""},
		{"", ""},
		{"a\x00b", ""},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			got, err := ws.Resolve(tc.path)
			if tc.want == "" {
				if err == nil {
					t.Fatalf("Resolve(%q) = %q, want an error", tc.path, got)
				}
				if tc.path != "" && !strings.Contains(err.Error(), tc.path) && !strings.Contains(err.Error(), "NUL") {
					t.Fatalf("error %q does not name the path %q", err, tc.path)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve(%q): %v", tc.path, err)
			}
			if want := filepath.Join(root, tc.want); got != want {
				t.Fatalf("Resolve(%q) = %q, want %q", tc.path, got, want)
			}
		})
	}
}

func TestRel(t *testing.T) {
	ws := newTestWorkspace(t)
	if got := ws.Rel(ws.Root()); got != "." {
		t.Errorf("Rel(root) = %q", got)
	}
	if got := ws.Rel(filepath.Join(ws.Root(), "a", "b.go")); got != "a/b.go" {
		t.Errorf("Rel = %q", got)
	}
}
