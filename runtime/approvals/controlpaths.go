package approvals

import (
	"slices"
	"strings"
)

// ControlNames are the files and directories of a workspace whose content
// decides what later runs, outside the edit that writes them: a
// repository's metadata (.git/config's core.fsmonitor runs on the next
// "git status", a hook on the next commit), scv's own project directory,
// an editor's settings and tasks, direnv's .envrc (run on the next cd),
// the per-directory vimrc files, a home directory's startup files and
// package tools' configs. An edit rule is never offered for a path
// in one of them, and an edit rule's wildcards never reach into one: only a
// rule that names it ("edit:.vscode/settings.json", "edit:**/.envrc")
// covers it. Names are compared without case, as a case-insensitive file
// system does (".GIT" is .git there).
//
// The list is closed and documented in docs/protocol.md ("Standing
// approvals"), which a test holds to this table.
var ControlNames = []string{
	".git", ".hg", ".svn", ".scv", ".vscode", ".idea", ".devcontainer", ".husky", ".envrc", ".exrc", ".nvimrc",
	".nvim.lua",
	// A workspace at the home directory: the shell's startup files, keys,
	// and what ~/.config and ~/.local/bin start.
	".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".ssh",
	".gnupg", ".config", ".local", ".gitconfig",
	// Package tools' configs that run code for every script they start
	// (.npmrc's node-options, .yarnrc.yml's yarnPath, .cargo's target.runner).
	".npmrc", ".yarnrc", ".yarnrc.yml", ".cargo",
}

// controlSegments are the segments of a slash-separated workspace path
// that are ControlNames, in lower case.
func controlSegments(rel string) []string {
	var out []string
	for _, seg := range strings.Split(rel, "/") {
		if seg = strings.ToLower(seg); slices.Contains(ControlNames, seg) {
			out = append(out, seg)
		}
	}
	return out
}

// namedSegments are the segments of an edit rule's glob without
// wildcards, in lower case: the names the rule spells out.
func namedSegments(glob string) []string {
	var out []string
	for _, seg := range strings.Split(glob, "/") {
		if !strings.ContainsAny(seg, `*?[\`) {
			out = append(out, strings.ToLower(seg))
		}
	}
	return out
}

// reachesControl reports whether an edit rule whose glob matched rel may
// cover it: every ControlNames segment of rel is one the rule names.
func (r Rule) reachesControl(rel string) bool {
	for _, seg := range controlSegments(rel) {
		if !slices.Contains(r.named, seg) {
			return false
		}
	}
	return true
}
