package prompt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// layout returns a resolved temp root holding a workspace and a home.
func layout(t *testing.T) (root, ws, home string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, home = filepath.Join(root, "ws"), filepath.Join(root, "home")
	for _, d := range []string{ws, home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return root, ws, home
}

func build(t *testing.T, opts Options) System {
	t.Helper()
	if opts.MaxReadBytes == 0 {
		opts.MaxReadBytes = 1 << 20
	}
	sys, err := Build(opts)
	if err != nil {
		t.Fatal(err)
	}
	return sys
}

func TestBuildWithoutAgentsOrSkills(t *testing.T) {
	_, ws, home := layout(t)
	sys := build(t, Options{Workspace: ws, Configured: "You are a test agent.\n", Home: home, SkillsEnabled: true})
	want := "You are a test agent.\n\nWorking directory: " + ws + "\n"
	if sys.Text != want {
		t.Fatalf("text = %q, want %q", sys.Text, want)
	}
	if len(sys.Skills) != 0 || len(sys.Notes) != 0 {
		t.Fatalf("skills %v notes %v", sys.Skills, sys.Notes)
	}
}

func TestAgentsIncluded(t *testing.T) {
	_, ws, _ := layout(t)
	write(t, filepath.Join(ws, AgentsFile), "Run `make check` before committing.")
	sys := build(t, Options{Workspace: ws, Configured: "Base."})
	for _, want := range []string{"Base.\n", "Working directory: " + ws, "# Project instructions (AGENTS.md)", "Run `make check` before committing.\n"} {
		if !strings.Contains(sys.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, sys.Text)
		}
	}
	if strings.Index(sys.Text, "Working directory") > strings.Index(sys.Text, "make check") {
		t.Errorf("AGENTS.md comes before the working directory:\n%s", sys.Text)
	}
	if len(sys.Notes) != 0 {
		t.Fatalf("notes = %v", sys.Notes)
	}
}

func TestAgentsSymlinkInsideWorkspaceIsFollowed(t *testing.T) {
	_, ws, _ := layout(t)
	write(t, filepath.Join(ws, "docs", "agents.md"), "Inside instructions.")
	symlink(t, filepath.Join("docs", "agents.md"), filepath.Join(ws, AgentsFile))
	sys := build(t, Options{Workspace: ws})
	if !strings.Contains(sys.Text, "Inside instructions.") {
		t.Fatalf("text = %q", sys.Text)
	}
}

func TestAgentsSymlinkOutsideWorkspaceIsRefused(t *testing.T) {
	root, ws, _ := layout(t)
	secret := filepath.Join(root, "secret.md")
	write(t, secret, "TOP SECRET")
	symlink(t, secret, filepath.Join(ws, AgentsFile))
	sys := build(t, Options{Workspace: ws})
	if strings.Contains(sys.Text, "TOP SECRET") || strings.Contains(sys.Text, "Project instructions") {
		t.Fatalf("outside file included:\n%s", sys.Text)
	}
	if len(sys.Notes) != 1 || !strings.Contains(sys.Notes[0], "outside the workspace") || !strings.Contains(sys.Notes[0], AgentsFile) {
		t.Fatalf("notes = %q", sys.Notes)
	}
}

func TestAgentsUnusableBecomesNote(t *testing.T) {
	_, ws, _ := layout(t)
	symlink(t, filepath.Join(ws, "missing.md"), filepath.Join(ws, AgentsFile))
	sys := build(t, Options{Workspace: ws})
	if len(sys.Notes) != 1 || !strings.Contains(sys.Notes[0], "cannot resolve") {
		t.Fatalf("dangling symlink: notes = %q", sys.Notes)
	}

	_, ws, _ = layout(t)
	if err := os.Mkdir(filepath.Join(ws, AgentsFile), 0o755); err != nil {
		t.Fatal(err)
	}
	sys = build(t, Options{Workspace: ws})
	if len(sys.Notes) != 1 || !strings.Contains(sys.Notes[0], "not a regular file") {
		t.Fatalf("directory: notes = %q", sys.Notes)
	}
}

func TestAgentsTruncatedAtMaxReadBytes(t *testing.T) {
	_, ws, _ := layout(t)
	write(t, filepath.Join(ws, AgentsFile), "0123456789ABCDEF")
	sys := build(t, Options{Workspace: ws, MaxReadBytes: 10})
	if !strings.Contains(sys.Text, "0123456789\n") || strings.Contains(sys.Text, "ABCDEF") {
		t.Fatalf("text = %q", sys.Text)
	}
	if !strings.Contains(sys.Text, "truncated") || !strings.Contains(sys.Text, "10 bytes") {
		t.Fatalf("no truncation marker in %q", sys.Text)
	}
	if len(sys.Notes) != 1 || !strings.Contains(sys.Notes[0], "truncated") {
		t.Fatalf("notes = %q", sys.Notes)
	}

	// A cut through a multi-byte rune drops the partial rune.
	write(t, filepath.Join(ws, AgentsFile), "ééé")
	sys = build(t, Options{Workspace: ws, MaxReadBytes: 3})
	if !strings.Contains(sys.Text, "\n\né\n[") || strings.Contains(sys.Text, "\uFFFD") {
		t.Fatalf("text = %q", sys.Text)
	}
}

func TestBuildRejectsBadOptions(t *testing.T) {
	_, ws, _ := layout(t)
	file := filepath.Join(ws, "f")
	write(t, file, "")
	cases := []struct {
		opts Options
		want string
	}{
		{Options{Workspace: "rel/ws", MaxReadBytes: 1}, "rel/ws"},
		{Options{Workspace: ws, MaxReadBytes: 0}, "max read bytes"},
		{Options{Workspace: filepath.Join(ws, "nope"), MaxReadBytes: 1}, "nope"},
		{Options{Workspace: file, MaxReadBytes: 1}, "not a directory"},
	}
	for _, tc := range cases {
		if _, err := Build(tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one containing %q", tc.opts, err, tc.want)
		}
	}
}
