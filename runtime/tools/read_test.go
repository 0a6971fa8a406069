package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadFile(t *testing.T) {
	ws := newTestWorkspace(t)
	root := ws.Root()
	var hundred strings.Builder
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&hundred, "line %03d of the file\n", i) // 21 bytes each
	}
	writeFiles(t, root, map[string]string{
		"abc.txt":      "a\nb\nc\n",
		"noeol.txt":    "x\ny",
		"empty.txt":    "",
		"long.txt":     hundred.String(),
		"oneline.txt":  strings.Repeat("é", 3000), // 6000 bytes, one line
		"nul.bin":      "text\x00more",
		"png.bin":      "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		"noise.bin":    strings.Repeat("\xff\xfe\x01\x02ab", 200),
		"latin1.txt":   strings.Repeat("caf\xe9 au lait, cr\xe8me br\xfbl\xe9e\n", 20),
		"dir/keep.txt": "k",
	})
	if err := os.Symlink("/etc/passwd", filepath.Join(root, "passwd")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name      string
		args      map[string]any
		ok        bool
		want      string // exact output when ok, else a substring
		contains  []string
		truncated bool
	}{
		{name: "whole file", args: map[string]any{"path": "abc.txt"}, ok: true, want: "a\nb\nc\n"},
		{name: "absolute inside", args: map[string]any{"path": filepath.Join(root, "abc.txt")}, ok: true, want: "a\nb\nc\n"},
		{name: "offset and limit", args: map[string]any{"path": "abc.txt", "offset": 2, "limit": 1}, ok: true,
			want: "b\n[showed lines 2-2; more follow: continue with offset=3]"},
		{name: "limit reaching the end", args: map[string]any{"path": "abc.txt", "offset": 2, "limit": 2}, ok: true, want: "b\nc\n"},
		{name: "limit past the end", args: map[string]any{"path": "abc.txt", "offset": 3, "limit": 9}, ok: true, want: "c\n"},
		{name: "offset zero means start", args: map[string]any{"path": "abc.txt", "offset": 0}, ok: true, want: "a\nb\nc\n"},
		{name: "no final newline", args: map[string]any{"path": "noeol.txt", "offset": 2}, ok: true, want: "y"},
		{name: "empty", args: map[string]any{"path": "empty.txt"}, ok: true, want: "(empty file)"},
		{name: "offset past end", args: map[string]any{"path": "abc.txt", "offset": 5}, want: "offset 5 is past the end of abc.txt (3 lines)"},
		{name: "offset just past end", args: map[string]any{"path": "noeol.txt", "offset": 3}, want: "past the end of noeol.txt (2 lines)"},
		{name: "truncated at whole lines", args: map[string]any{"path": "long.txt"}, ok: true, truncated: true,
			contains: []string{"line 001", "line 048 of the file\n[truncated at 1024 bytes: showed lines 1-48; continue with offset=49]"}},
		{name: "paging on", args: map[string]any{"path": "long.txt", "offset": 49, "limit": 2}, ok: true,
			want: "line 049 of the file\nline 050 of the file\n[showed lines 49-50; more follow: continue with offset=51]"},
		{name: "one long line", args: map[string]any{"path": "oneline.txt"}, ok: true, truncated: true,
			contains: []string{strings.Repeat("é", 512) + "\n[truncated: line 1 is longer than 1024 bytes"}},
		{name: "legacy encoding", args: map[string]any{"path": "latin1.txt", "limit": 1}, ok: true, contains: []string{"caf\uFFFD au lait"}},
		{name: "NUL byte", args: map[string]any{"path": "nul.bin"}, want: "nul.bin looks like a binary file"},
		{name: "png", args: map[string]any{"path": "png.bin"}, want: "binary"},
		{name: "mostly invalid UTF-8", args: map[string]any{"path": "noise.bin"}, want: "binary"},
		{name: "directory", args: map[string]any{"path": "dir"}, want: "dir is a directory"},
		{name: "fifo", args: map[string]any{"path": "fifo"}, want: "fifo is not a regular file"},
		{name: "missing", args: map[string]any{"path": "nope.txt"}, want: "nope.txt"},
		{name: "parent escape", args: map[string]any{"path": "../abc.txt"}, want: `"../abc.txt" is outside the workspace`},
		{name: "absolute outside", args: map[string]any{"path": "/etc/passwd"}, want: "outside the workspace"},
		{name: "symlink out", args: map[string]any{"path": "passwd"}, want: `"passwd" is outside the workspace`},
	}
	tool := toolNamed(t, ws, testLimits(), "read_file")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, tool, tc.args)
			if !tc.ok {
				wantFail(t, res, "read_file: ", tc.want)
				return
			}
			wantOK(t, res)
			if tc.want != "" && res.Output != tc.want {
				t.Fatalf("output %q, want %q", res.Output, tc.want)
			}
			for _, s := range tc.contains {
				if !strings.Contains(res.Output, s) {
					t.Fatalf("output %q does not contain %q", res.Output, s)
				}
			}
			if res.Truncated != tc.truncated {
				t.Fatalf("Truncated = %v, want %v", res.Truncated, tc.truncated)
			}
		})
	}
	if s := tool.Summary(argsJSON(t, map[string]any{"path": "long.txt", "offset": 3, "limit": 2})); s != "read_file long.txt (from line 3, 2 lines)" {
		t.Errorf("Summary = %q", s)
	}
}

func TestListDir(t *testing.T) {
	ws := newTestWorkspace(t)
	root := ws.Root()
	writeFiles(t, root, map[string]string{
		"b.txt": "", "c.go": "", ".hidden": "", "a/x": "", "sub/inner/y": "",
		"many/" + strings.Repeat("n", 200) + "1": "",
	})
	if err := os.Mkdir(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		writeFiles(t, root, map[string]string{fmt.Sprintf("many/%s%02d", strings.Repeat("n", 200), i): ""})
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(root, "outlink")); err != nil {
		t.Fatal(err)
	}
	tool := toolNamed(t, ws, testLimits(), "list_dir")

	tests := []struct {
		name, path, want string
		ok, truncated    bool
	}{
		{name: "root", path: "", ok: true, want: ".hidden\na/\nb.txt\nc.go\nempty/\nmany/\noutlink\nsub/\n"},
		{name: "dot", path: ".", ok: true, want: ".hidden\na/\nb.txt\nc.go\nempty/\nmany/\noutlink\nsub/\n"},
		{name: "nested", path: "sub/inner", ok: true, want: "y\n"},
		{name: "empty", path: "empty", ok: true, want: "(empty directory)"},
		{name: "capped", path: "many", ok: true, truncated: true, want: "[truncated: showed 10 of 21 entries]"},
		{name: "file", path: "b.txt", want: "b.txt is not a directory"},
		{name: "missing", path: "nope", want: "nope"},
		{name: "escape", path: "..", want: `".." is outside the workspace`},
		{name: "symlink out", path: "outlink", want: `"outlink" is outside the workspace`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := map[string]any{}
			if tc.path != "" {
				args["path"] = tc.path
			}
			res := run(t, tool, args)
			if !tc.ok {
				wantFail(t, res, "list_dir: ", tc.want)
				return
			}
			wantOK(t, res)
			if res.Truncated != tc.truncated {
				t.Fatalf("Truncated = %v, want %v", res.Truncated, tc.truncated)
			}
			if tc.truncated && !strings.HasSuffix(res.Output, tc.want) || !tc.truncated && res.Output != tc.want {
				t.Fatalf("output %q, want %q", res.Output, tc.want)
			}
		})
	}

	// The entry cap holds even when the byte budget would allow more.
	for i := range maxListEntries + 5 {
		writeFiles(t, root, map[string]string{fmt.Sprintf("lots/f%04d", i): ""})
	}
	big := toolNamed(t, ws, Limits{MaxOutputBytes: 1 << 20}, "list_dir")
	res := run(t, big, map[string]any{"path": "lots"})
	if !res.Truncated || strings.Count(res.Output, "\n") != maxListEntries {
		t.Fatalf("entry cap: truncated=%v, %d lines", res.Truncated, strings.Count(res.Output, "\n"))
	}
}
