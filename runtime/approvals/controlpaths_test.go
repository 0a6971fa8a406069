package approvals

import (
	"slices"
	"testing"
)

// A file that configures what later runs (.git/config's core.fsmonitor
// runs on the next "git status", a hook on the next commit, .envrc on the
// next cd under direnv, .vscode/tasks.json in the editor, .scv/ in scv)
// was offered an edit rule ("edit:.git/**"), and a wildcard rule
// ("edit:**", "edit:src/**") reached into it: the model could rewrite it
// forever without asking.
func TestSuggestOffersNoEditRuleForFilesThatConfigureWhatRuns(t *testing.T) {
	for _, p := range []string{
		".git/config", ".git/hooks/pre-commit", ".GIT/config", "vendor/x/.git/config", ".git",
		".hg/hgrc", ".svn/entries", ".scv/config.toml", ".scv/skills/a/SKILL.md",
		".vscode/settings.json", ".vscode/tasks.json", ".idea/workspace.xml", ".devcontainer/devcontainer.json",
		".husky/pre-commit", ".envrc", "src/.envrc", ".exrc", ".nvimrc", ".nvim.lua",
	} {
		if got := Suggest(Call{Path: p}); got != "" {
			t.Errorf("Suggest(%q) = %q, want no rule", p, got)
		}
	}
	if got := Suggest(Call{Path: "src/git/config.go"}); got != "edit:src/git/**" {
		t.Errorf("Suggest(src/git/config.go) = %q, want edit:src/git/**", got)
	}
}

func TestEditWildcardsNeverReachFilesThatConfigureWhatRuns(t *testing.T) {
	cases := []struct {
		rule, path string
		want       bool
	}{
		{"edit:**", ".git/config", false},
		{"edit:**", ".GIT/hooks/pre-commit", false},
		{"edit:src/**", "src/.envrc", false},
		{"edit:src/**", "src/sub/.git/config", false},
		{"edit:*", ".envrc", false},
		{"edit:.*", ".envrc", false},
		{"edit:.vs*/**", ".vscode/tasks.json", false},
		{"edit:**/*.json", ".vscode/settings.json", false},
		{"edit:**", "src/a.go", true},
		{"edit:src/**", "src/.gitignore", true},
		// A rule that names the file or directory is the user's choice.
		{"edit:.vscode/settings.json", ".vscode/settings.json", true},
		{"edit:.git/**", ".git/info/exclude", true},
		{"edit:**/.envrc", "src/.envrc", true},
	}
	for _, tc := range cases {
		r, err := Parse(tc.rule)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Matches(Call{Path: tc.path}); got != tc.want {
			t.Errorf("%s matches %q = %v, want %v", tc.rule, tc.path, got, tc.want)
		}
	}
}

// The protocol page lists exactly the ControlNames table.
func TestProtocolListsTheControlNames(t *testing.T) {
	listed := listedInProtocol(t, "control names: ", " An `edit:.git/**` rule")
	if !slices.Equal(listed, ControlNames) {
		t.Errorf("docs/protocol.md lists control names\n%q\nthe table holds\n%q", listed, ControlNames)
	}
}

// In a workspace at the home directory (scv run in ~) the shell's startup
// files, ~/.ssh, ~/.config and ~/.local/bin decide what later runs, and a
// project's .npmrc ("node-options=--require ./x.js"), .yarnrc.yml
// ("yarnPath") and .cargo/config.toml ("target.runner") do for every
// script they start: they were offered edit rules.
func TestSuggestOffersNoEditRuleForStartupFilesAndToolConfigs(t *testing.T) {
	for _, p := range []string{".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zshenv",
		".zprofile", ".zlogin", ".ssh/authorized_keys", ".gnupg/gpg.conf", ".config/autostart/x.desktop",
		".local/bin/ls", ".gitconfig", ".npmrc", ".yarnrc", ".yarnrc.yml", ".cargo/config.toml"} {
		if got := Suggest(Call{Path: p}); got != "" {
			t.Errorf("Suggest(%q) = %q, want no rule", p, got)
		}
	}
}
