package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// searchTree builds the tree grep and glob tests share.
func searchTree(t *testing.T) *Workspace {
	t.Helper()
	ws := newTestWorkspace(t)
	root := ws.Root()
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"hello.txt": "hello from outside\n"})
	writeFiles(t, root, map[string]string{
		"main.go":          "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n",
		"lib/util.go":      "package lib\n// hello helper\nfunc Hello() {}\n",
		"lib/util_test.go": "package lib\n// hello test\n",
		"lib/deep/x.go":    "package deep\n",
		"docs/readme.md":   "Hello world\nhello again\n",
		".git/config":      "hello from git\n",
		"sub/.git/x":       "hello nested git\n",
		"bin.dat":          "hello\x00binary",
		"crlf.txt":         "hello crlf\r\n",
		"bad.txt":          "hello \xff world\n",
	})
	for name, target := range map[string]string{"outlink": outside, "passwd": "/etc/passwd"} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

func TestGrep(t *testing.T) {
	ws := searchTree(t)
	roomy := Limits{MaxOutputBytes: 1 << 16, MaxGrepMatches: 100}
	tests := []struct {
		name      string
		limits    Limits
		args      map[string]any
		ok        bool
		want      string // whole output when ok, else a substring of the error
		truncated bool
	}{
		{name: "whole tree", limits: roomy, args: map[string]any{"pattern": "hello"}, ok: true,
			want: "bad.txt:1: hello \uFFFD world\ncrlf.txt:1: hello crlf\ndocs/readme.md:2: hello again\n" +
				"lib/util.go:2: // hello helper\nlib/util_test.go:2: // hello test\nmain.go:4: \tprintln(\"hello\")\n"},
		{name: "subdirectory, case-insensitive", limits: roomy, args: map[string]any{"pattern": "(?i)^hello", "path": "docs"}, ok: true,
			want: "docs/readme.md:1: Hello world\ndocs/readme.md:2: hello again\n"},
		{name: "name glob", limits: roomy, args: map[string]any{"pattern": "hello", "glob": "*.go"}, ok: true,
			want: "lib/util.go:2: // hello helper\nlib/util_test.go:2: // hello test\nmain.go:4: \tprintln(\"hello\")\n"},
		{name: "path glob", limits: roomy, args: map[string]any{"pattern": "package", "glob": "lib/**/*.go"}, ok: true,
			want: "lib/deep/x.go:1: package deep\nlib/util.go:1: package lib\nlib/util_test.go:1: package lib\n"},
		{name: "single file", limits: roomy, args: map[string]any{"pattern": `println\(`, "path": "main.go"}, ok: true,
			want: "main.go:4: \tprintln(\"hello\")\n"},
		{name: "no matches", limits: roomy, args: map[string]any{"pattern": "zebra"}, ok: true, want: "no matches"},
		{name: "symlinks not followed", limits: roomy, args: map[string]any{"pattern": "root|outside"}, ok: true, want: "no matches"},
		{name: "match cap", limits: Limits{MaxOutputBytes: 1 << 16, MaxGrepMatches: 2}, args: map[string]any{"pattern": "hello"}, ok: true, truncated: true,
			want: "bad.txt:1: hello \uFFFD world\ncrlf.txt:1: hello crlf\n[truncated: showed 2 matches; narrow the pattern, path or glob]"},
		{name: "output cap", limits: Limits{MaxOutputBytes: 40, MaxGrepMatches: 100}, args: map[string]any{"pattern": "hello"}, ok: true, truncated: true,
			want: "bad.txt:1: hello \uFFFD world\n[truncated: showed 1 match; narrow the pattern, path or glob]"},
		{name: "escape", limits: roomy, args: map[string]any{"pattern": "x", "path": "../"}, want: `"../" is outside the workspace`},
		{name: "symlinked dir out", limits: roomy, args: map[string]any{"pattern": "x", "path": "outlink"}, want: `"outlink" is outside the workspace`},
		{name: "binary file named", limits: roomy, args: map[string]any{"pattern": "x", "path": "bin.dat"}, want: "bin.dat looks like a binary file"},
		{name: "missing path", limits: roomy, args: map[string]any{"pattern": "x", "path": "nope"}, want: "nope"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, toolNamed(t, ws, tc.limits, "grep"), tc.args)
			if !tc.ok {
				wantFail(t, res, "grep: ", tc.want)
				return
			}
			wantOK(t, res)
			if res.Output != tc.want || res.Truncated != tc.truncated {
				t.Fatalf("output %q (truncated %v), want %q (truncated %v)", res.Output, res.Truncated, tc.want, tc.truncated)
			}
		})
	}
}

func TestGrepLongLine(t *testing.T) {
	ws := newTestWorkspace(t)
	writeFiles(t, ws.Root(), map[string]string{"min.js": strings.Repeat("é", maxGrepLineShown) + "needle\n"})
	res := run(t, toolNamed(t, ws, testLimits(), "grep"), map[string]any{"pattern": "needle"})
	wantOK(t, res)
	want := "min.js:1: " + strings.Repeat("é", maxGrepLineShown/2) + "…\n"
	if res.Output != want {
		t.Fatalf("output %q, want %q", res.Output, want)
	}
}

func TestGlobPatternMatch(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"*.go", "main.go", true},
		{"*.go", "lib/main.go", false},
		{"**/*.go", "main.go", true},
		{"**/*.go", "a/b/c.go", true},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a/**/b", "a/x/y/c", false},
		{"a/**", "a", true},
		{"a/**", "a/b/c", true},
		{"**", "anything/at/all", true},
		{"a/*/c", "a/b/c", true},
		{"a/*/c", "a/b/d/c", false},
		{"src/[ab].txt", "src/b.txt", true},
		{"./x/**/**/y", "x/y", true},
	}
	for _, tc := range tests {
		g, err := parseGlob(tc.pattern)
		if err != nil {
			t.Fatalf("parseGlob(%q): %v", tc.pattern, err)
		}
		if got := g.match(tc.path); got != tc.want {
			t.Errorf("%q matches %q = %v, want %v", tc.pattern, tc.path, got, tc.want)
		}
	}
}

func TestGlob(t *testing.T) {
	ws := searchTree(t)
	writeFiles(t, ws.Root(), map[string]string{"a/b": "", "a/x/b": "", "a/x/y/b": "", "a/x/y/c": ""})
	tests := []struct {
		pattern string
		ok      bool
		want    string
	}{
		{"**/*.go", true, "lib/deep/x.go\nlib/util.go\nlib/util_test.go\nmain.go\n"},
		{"*.go", true, "main.go\n"},
		{"lib/*", true, "lib/deep/\nlib/util.go\nlib/util_test.go\n"},
		{"lib/**", true, "lib/\nlib/deep/\nlib/deep/x.go\nlib/util.go\nlib/util_test.go\n"},
		{"a/**/b", true, "a/b\na/x/b\na/x/y/b\n"},
		{"docs", true, "docs/\n"},
		{"*.txt", true, "bad.txt\ncrlf.txt\n"},
		{"**/.git/*", true, "no matches"},
		{".git/*", true, ".git/config\n"}, // asked for by name
		{"nowhere/*.go", true, "no matches"},
		{"outlink/*", false, `"outlink" is outside the workspace`},
	}
	tool := toolNamed(t, ws, testLimits(), "glob")
	for _, tc := range tests {
		t.Run(tc.pattern, func(t *testing.T) {
			res := run(t, tool, map[string]any{"pattern": tc.pattern})
			if !tc.ok {
				wantFail(t, res, "glob: ", tc.want)
				return
			}
			wantOK(t, res)
			if res.Output != tc.want || res.Truncated {
				t.Fatalf("output %q (truncated %v), want %q", res.Output, res.Truncated, tc.want)
			}
		})
	}

	for i := range maxListEntries + 5 {
		writeFiles(t, ws.Root(), map[string]string{fmt.Sprintf("lots/f%04d.log", i): ""})
	}
	res := run(t, toolNamed(t, ws, Limits{MaxOutputBytes: 1 << 20}, "glob"), map[string]any{"pattern": "lots/*.log"})
	if !res.Truncated || strings.Count(res.Output, "\n") != maxListEntries {
		t.Fatalf("entry cap: truncated=%v, %d lines", res.Truncated, strings.Count(res.Output, "\n"))
	}
	res = run(t, toolNamed(t, ws, Limits{MaxOutputBytes: 100}, "glob"), map[string]any{"pattern": "lots/*.log"})
	if !res.Truncated || !strings.HasSuffix(res.Output, "[truncated: showed 6 matches; narrow the pattern]") {
		t.Fatalf("byte cap: %+v", res)
	}
}
