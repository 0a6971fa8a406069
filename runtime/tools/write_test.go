package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func readBack(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWriteFile(t *testing.T) {
	ws := newTestWorkspace(t)
	root := ws.Root()
	outside := t.TempDir()
	writeFiles(t, root, map[string]string{"a.txt": "one\ntwo\n", "dir/keep": "", "img.bin": "\x00\x01\x02"})
	if err := os.Chmod(filepath.Join(root, "a.txt"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"in": "dir", "out": outside, "dangle": filepath.Join(outside, "made")} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	tool := toolNamed(t, ws, testLimits(), "write_file")

	tests := []struct {
		name, path, content string
		summary, output     string // expected on success
		file                string // where the content lands, relative to root
		fail                string // expected error substring instead
	}{
		{name: "new file with parents", path: "new/deep/f.txt", content: "hi\n", file: "new/deep/f.txt",
			summary: "write_file new/deep/f.txt (new file)\n--- a/new/deep/f.txt\n+++ b/new/deep/f.txt\n@@ -0,0 +1 @@\n+hi\n",
			output:  "created new/deep/f.txt (3 bytes)"},
		{name: "overwrite", path: "a.txt", content: "one\nTWO\n", file: "a.txt",
			summary: "write_file a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n",
			output:  "wrote a.txt (8 bytes, +1 -1 lines)"},
		{name: "unchanged", path: "a.txt", content: "one\nTWO\n", file: "a.txt",
			summary: "write_file a.txt: no changes", output: "wrote a.txt (8 bytes, +0 -0 lines)"},
		{name: "through inner symlink", path: "in/x.txt", content: "x", file: "dir/x.txt",
			summary: "write_file dir/x.txt (new file)\n--- a/dir/x.txt\n+++ b/dir/x.txt\n@@ -0,0 +1 @@\n+x\n\\ No newline at end of file\n",
			output:  "created dir/x.txt (1 byte)"},
		{name: "binary replaced", path: "img.bin", content: "text", file: "img.bin",
			summary: "write_file img.bin: replaces a binary or very large file with 4 bytes", output: "replaced img.bin (4 bytes)"},
		{name: "parent escape", path: "../x.txt", content: "x", fail: `"../x.txt" is outside the workspace`},
		{name: "absolute outside", path: filepath.Join(outside, "x.txt"), content: "x", fail: "outside the workspace"},
		{name: "symlinked dir out", path: "out/x.txt", content: "x", fail: `"out/x.txt" is outside the workspace`},
		{name: "dangling symlink out", path: "dangle", content: "x", fail: `"dangle" is outside the workspace`},
		{name: "directory", path: "dir", content: "x", fail: "dir is a directory"},
		{name: "parent is a file", path: "a.txt/x", content: "x", fail: "a.txt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := map[string]any{"path": tc.path, "content": tc.content}
			summary := tool.Summary(argsJSON(t, args))
			res := run(t, tool, args)
			if tc.fail != "" {
				wantFail(t, res, "write_file: ", tc.fail)
				if !strings.Contains(summary, tc.fail) {
					t.Errorf("Summary %q does not carry the error", summary)
				}
				return
			}
			wantOK(t, res)
			if summary != tc.summary {
				t.Errorf("Summary:\n%s\nwant:\n%s", summary, tc.summary)
			}
			if res.Output != tc.output {
				t.Errorf("output %q, want %q", res.Output, tc.output)
			}
			if got := readBack(t, filepath.Join(root, tc.file)); got != tc.content {
				t.Errorf("file holds %q, want %q", got, tc.content)
			}
		})
	}
	for _, p := range []string{filepath.Join(outside, "x.txt"), filepath.Join(outside, "made")} {
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s was created outside the workspace (%v)", p, err)
		}
	}
	if info, err := os.Stat(filepath.Join(root, "a.txt")); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("a.txt mode changed: %v %v", info.Mode(), err)
	}

	big := strings.Repeat("ü line\n", 2000)
	s := tool.Summary(argsJSON(t, map[string]any{"path": "big.txt", "content": big}))
	if !strings.HasSuffix(s, "\n[diff truncated]") || len(s) > testLimits().MaxOutputBytes+50 || !utf8.ValidString(s) {
		t.Errorf("big summary not capped: %d bytes, ends %q", len(s), s[max(0, len(s)-40):])
	}
}

func TestEditFile(t *testing.T) {
	ws := newTestWorkspace(t)
	root := ws.Root()
	tool := toolNamed(t, ws, testLimits(), "edit_file")
	tests := []struct {
		name     string
		start    string
		args     map[string]any
		want     string // file content afterwards
		summary  string
		output   string
		fail     string
		noCreate bool
	}{
		{name: "single", start: "a\nb\nc\n", args: map[string]any{"old": "b", "new": "B"}, want: "a\nB\nc\n",
			summary: "edit_file f.txt\n--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n",
			output:  "edited f.txt: replaced 1 occurrence (+1 -1 lines)"},
		{name: "multi-line old", start: "func a() {\n\treturn 1\n}\n", args: map[string]any{"old": "\treturn 1\n}", "new": "\treturn 2\n}"},
			want:    "func a() {\n\treturn 2\n}\n",
			summary: "edit_file f.txt\n--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n func a() {\n-\treturn 1\n+\treturn 2\n }\n",
			output:  "edited f.txt: replaced 1 occurrence (+1 -1 lines)"},
		{name: "ambiguous", start: "x\nx\nx\n", args: map[string]any{"old": "x", "new": "y"}, want: "x\nx\nx\n",
			fail: "old text occurs 3 times in f.txt"},
		{name: "replace all", start: "x\nx\nx\n", args: map[string]any{"old": "x", "new": "y", "replace_all": true}, want: "y\ny\ny\n",
			summary: "edit_file f.txt\n--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n-x\n-x\n-x\n+y\n+y\n+y\n",
			output:  "edited f.txt: replaced 3 occurrences (+3 -3 lines)"},
		{name: "not found", start: "a\n", args: map[string]any{"old": "zzz", "new": "y"}, want: "a\n", fail: "old text not found in f.txt"},
		{name: "binary", start: "a\x00b", args: map[string]any{"old": "a", "new": "c"}, want: "a\x00b", fail: "f.txt is binary"},
		{name: "missing", noCreate: true, args: map[string]any{"old": "a", "new": "b"}, fail: "f.txt does not exist"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(root, "f.txt")
			os.Remove(p)
			if !tc.noCreate {
				writeFiles(t, root, map[string]string{"f.txt": tc.start})
			}
			tc.args["path"] = "f.txt"
			summary := tool.Summary(argsJSON(t, tc.args))
			res := run(t, tool, tc.args)
			if tc.fail != "" {
				wantFail(t, res, "edit_file: ", tc.fail)
				if !strings.Contains(summary, tc.fail) {
					t.Errorf("Summary %q does not carry the error", summary)
				}
			} else {
				wantOK(t, res)
				if summary != tc.summary {
					t.Errorf("Summary:\n%s\nwant:\n%s", summary, tc.summary)
				}
				if res.Output != tc.output {
					t.Errorf("output %q, want %q", res.Output, tc.output)
				}
			}
			if !tc.noCreate {
				if got := readBack(t, p); got != tc.want {
					t.Errorf("file holds %q, want %q", got, tc.want)
				}
			}
		})
	}

	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"o.txt": "secret\n"})
	if err := os.Symlink(filepath.Join(outside, "o.txt"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	res := run(t, tool, map[string]any{"path": "link", "old": "secret", "new": "pwned"})
	wantFail(t, res, `"link" is outside the workspace`)
	if got := readBack(t, filepath.Join(outside, "o.txt")); got != "secret\n" {
		t.Errorf("outside file changed to %q", got)
	}
}
