package checkpoint

import (
	"path/filepath"
	"strings"
)

// Directories kept out (Root.KeepOut): scv's home inside a workspace
// (scv run in ~) holds the checkpoints and the session logs, files scv
// writes as it works. In a snapshot, every turn's changes would list them
// and an undo would rewrite the checkpoints it reads from. They are in
// the shadow repository's info/exclude, which git add -A honours, and
// left out by name where a path is added past the excludes (a file tool's
// target, a file the user's repository tracks) and from a revert's plan.

// keptOutOf returns the directories of dirs inside workspace, relative
// and slash-separated, and the info/exclude lines naming them.
func keptOutOf(workspace string, dirs []string) (rels []string, exclude string) {
	var b strings.Builder
	for _, dir := range dirs {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		}
		rel, err := filepath.Rel(workspace, dir)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue // not inside the workspace (or the workspace itself)
		}
		rel = filepath.ToSlash(rel)
		rels = append(rels, rel)
		b.WriteString("/" + escapePattern(rel) + "/\n")
	}
	return rels, b.String()
}

// escapePattern makes path a gitignore pattern matching only itself.
func escapePattern(path string) string {
	var b strings.Builder
	for _, c := range path {
		if strings.ContainsRune(`\*?[] !#`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// withoutKeptOut is paths less those under a kept-out directory.
func (r *Repo) withoutKeptOut(paths []string) []string {
	if len(r.keepOut) == 0 {
		return paths
	}
	var kept []string
	for _, p := range paths {
		if !r.isKeptOut(p) {
			kept = append(kept, p)
		}
	}
	return kept
}

func (r *Repo) isKeptOut(path string) bool {
	for _, dir := range r.keepOut {
		if path == dir || strings.HasPrefix(path, dir+"/") {
			return true
		}
	}
	return false
}
