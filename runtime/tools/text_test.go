package tools

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestLooksBinary(t *testing.T) {
	tests := []struct {
		name   string
		prefix string
		want   bool
	}{
		{"empty", "", false},
		{"ascii", "hello\n\tworld\r\n", false},
		{"utf-8", "héllo wörld ✓\n", false},
		{"escape sequences", "\x1b[31mred\x1b[0m\n", false},
		{"NUL", "abc\x00def", true},
		{"rune cut at the end", "abc" + "✓"[:2], false},
		{"a little latin-1", "caf\xe9 cr\xe8me br\xfbl\xe9e and a long tail of plain words", false},
		{"mostly invalid", strings.Repeat("\xff\xfe\xfd", 10) + "ab", true},
		{"control bytes", strings.Repeat("\x01\x02\x03a", 10), true},
	}
	for _, tc := range tests {
		if got := looksBinary([]byte(tc.prefix)); got != tc.want {
			t.Errorf("%s: looksBinary = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestCutUTF8(t *testing.T) {
	for n := range 8 {
		got := cutUTF8("aé✓", n)
		if !strings.HasPrefix("aé✓", got) || len(got) > n || !json.Valid([]byte(`"`+got+`"`)) {
			t.Errorf("cutUTF8(%d) = %q", n, got)
		}
	}
	if got := trimPartialRune("ab" + "✓"[:2]); got != "ab" {
		t.Errorf("trimPartialRune = %q", got)
	}
	if got := trimPartialRune("ab✓"); got != "ab✓" {
		t.Errorf("trimPartialRune = %q", got)
	}
}

func TestReadOnlySummaries(t *testing.T) {
	ws := newTestWorkspace(t)
	tests := []struct {
		tool, args, want string
	}{
		{"list_dir", `{}`, "list_dir ."},
		{"list_dir", `{"path":"src"}`, "list_dir src"},
		{"grep", `{"pattern":"TODO","glob":"*.go"}`, `grep "TODO" in . (files matching *.go)`},
		{"glob", `{"pattern":"**/*.md"}`, "glob **/*.md"},
		{"read_file", `{"path":"a.go"}`, "read_file a.go"},
	}
	for _, tc := range tests {
		if got := toolNamed(t, ws, testLimits(), tc.tool).Summary(json.RawMessage(tc.args)); got != tc.want {
			t.Errorf("%s %s: Summary = %q, want %q", tc.tool, tc.args, got, tc.want)
		}
	}
}
