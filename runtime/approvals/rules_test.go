package approvals

import (
	"slices"
	"testing"
)

func TestShellRulesMatchTheArgvPrefixOnly(t *testing.T) {
	cases := []struct {
		rule, command string
		want          bool
	}{
		{"shell:go test *", "go test ./...", true},
		{"shell:go test *", "go test", true},
		{"shell:go test *", "  go   test  -run X ./lsp", true},
		{"shell:go test *", "go 'test' ./...", true},
		{"shell:go test *", "go testx", false},
		{"shell:go test *", "go vet ./...", false},
		{"shell:go test *", "echo go test", false},
		{"shell:go test *", "echo go test; rm -rf x", false},
		{"shell:go test *", "go test ./...; rm -rf x", false},
		{"shell:go test *", "go test ./... && rm -rf x", false},
		{"shell:go test *", "go test ./... || rm -rf x", false},
		{"shell:go test *", "go test ./... | sh", false},
		{"shell:go test *", "go test $(rm -rf x)", false},
		{"shell:go test *", "go test `rm -rf x`", false},
		{"shell:go test *", "go test > out.txt", false},
		{"shell:go test *", "go test < in.txt", false},
		{"shell:go test *", "go test ./...\nrm -rf x", false},
		{"shell:go test *", "go test ./... & rm -rf x", false},
		{"shell:go test *", `go test "$HOME"`, false},
		{"shell:go test *", "go test 'unclosed", false},
		{"shell:go test *", "GOFLAGS=-x go test", false},
		{"shell:go test *", "go test *.go", false},
		{"shell:git status", "git status", true},
		{"shell:git status", "git status --short", false},
		{"shell:git status", "git statusx", false},
		{"shell:git status", "git", false},
		{"shell:make *", "make", true},
		{"shell:make *", "make-all", false},
		{"shell:make *", "", false},
	}
	for _, tc := range cases {
		r, err := Parse(tc.rule)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.rule, err)
		}
		if got := r.Matches(Call{Command: tc.command}); got != tc.want {
			t.Errorf("%q matches %q = %v, want %v", tc.rule, tc.command, got, tc.want)
		}
	}
}

func TestEditRulesAreWorkspaceGlobs(t *testing.T) {
	cases := []struct {
		rule, path string
		want       bool
	}{
		{"edit:docs/**", "docs/a.md", true},
		{"edit:docs/**", "docs/deep/b.md", true},
		{"edit:docs/**", "docsx/a.md", false},
		{"edit:docs/**", "src/docs/a.md", false},
		{"edit:*.md", "README.md", true},
		{"edit:*.md", "docs/a.md", false},
		{"edit:**/*.md", "docs/a.md", true},
		{"edit:docs/**", "", false},
	}
	for _, tc := range cases {
		r, err := Parse(tc.rule)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.rule, err)
		}
		if got := r.Matches(Call{Path: tc.path}); got != tc.want {
			t.Errorf("%q matches path %q = %v, want %v", tc.rule, tc.path, got, tc.want)
		}
		if r.Matches(Call{Command: "docs/a.md"}) {
			t.Errorf("edit rule %q matched a command", tc.rule)
		}
	}
}

func TestParseRefusesBadRules(t *testing.T) {
	for _, bad := range []string{
		"", "go test *", "shell:", "shell:*", "shell:go test; rm *", "shell:go * test", "shell:go 'test'",
		"shell:$(x)", "edit:", "edit:/etc/**", "edit:../x", "edit:docs/[", "net:example.com", "Shell:go",
	} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted a bad rule", bad)
		}
	}
}

func TestSuggest(t *testing.T) {
	cases := []struct {
		call Call
		want string
	}{
		{Call{Command: "go test ./..."}, "shell:go test ./..."},
		{Call{Command: "ip addr show"}, "shell:ip addr *"},
		{Call{Command: "git status"}, "shell:git status"},
		{Call{Command: "ls -la"}, "shell:ls *"},
		{Call{Command: "./build.sh --fast"}, "shell:./build.sh --fast"},
		{Call{Command: "echo go test; rm -rf x"}, ""},
		{Call{Command: "cat a | grep b"}, ""},
		{Call{Path: "docs/guide/a.md"}, "edit:docs/guide/**"},
		{Call{Path: "README.md"}, "edit:README.md"},
		{Call{Path: "src/[id]/page.tsx"}, `edit:src/\[id]/**`},
		{Call{Path: "a*b.md"}, `edit:a\*b.md`},
		{Call{}, ""},
	}
	for _, tc := range cases {
		got := Suggest(tc.call)
		if got != tc.want {
			t.Errorf("Suggest(%+v) = %q, want %q", tc.call, got, tc.want)
		}
		if got == "" {
			continue
		}
		// A suggestion allows the call it was made for.
		r, err := Parse(got)
		if err != nil || !r.Matches(tc.call) {
			t.Errorf("suggestion %q does not allow %+v (%v)", got, tc.call, err)
		}
	}
}

func TestSetAllows(t *testing.T) {
	set, err := ParseAll([]string{"shell:git status", "edit:docs/**"})
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := set.Allows(Call{Path: "docs/x.md"}); !ok || r.String() != "edit:docs/**" {
		t.Errorf("Allows docs/x.md = %v, %v", r, ok)
	}
	if _, ok := set.Allows(Call{Command: "git push"}); ok {
		t.Error("git push allowed by shell:git status")
	}
	if _, err := ParseAll([]string{"shell:ok", "bad"}); err == nil {
		t.Error("ParseAll accepted a bad rule")
	}
	argv, _ := Argv(`git commit -m "a message"`)
	if !slices.Equal(argv, []string{"git", "commit", "-m", "a message"}) {
		t.Errorf("Argv = %q", argv)
	}
}
