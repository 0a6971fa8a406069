// Package approvals holds the user's standing approvals: rules such as
// "shell:go test *" or "edit:docs/**" (the [approvals] allow list of the
// user's config) that let a matching tool call run without asking.
package approvals

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"scv/runtime/tools"
)

// Rule kinds, the part before the colon.
const (
	KindShell = "shell"
	KindEdit  = "edit"
)

// wildcard, as a rule's last word, lets a shell rule match any further
// arguments.
const wildcard = "*"

// Rule is one parsed allow rule.
type Rule struct {
	text string
	kind string
	// A shell rule: the words a command's argv starts with, and whether
	// more may follow.
	prefix []string
	open   bool
	// An edit rule: the workspace paths it covers, and the segments it
	// names without wildcards (see ControlNames).
	glob  tools.Glob
	named []string
}

// String is the rule as written.
func (r Rule) String() string { return r.text }

// Parse reads one rule: "shell:<words> [*]" or "edit:<glob>".
func Parse(text string) (Rule, error) {
	kind, body, ok := strings.Cut(text, ":")
	if !ok {
		return Rule{}, fmt.Errorf("rule %q: want shell:<command prefix> or edit:<glob>", text)
	}
	r := Rule{text: text, kind: kind}
	switch kind {
	case KindShell:
		words := strings.Fields(body)
		if n := len(words); n > 0 && words[n-1] == wildcard {
			words, r.open = words[:n-1], true
		}
		argv, ok := Argv(strings.Join(words, " "))
		if !ok || len(argv) != len(words) || strings.ContainsAny(body, `'"`) {
			return Rule{}, fmt.Errorf("rule %q: a shell rule is a command's first words, without quotes or shell syntax, optionally ending in \" *\"", text)
		}
		r.prefix = argv
	case KindEdit:
		glob := strings.TrimSpace(body)
		g, err := tools.ParseGlob(glob)
		if err != nil {
			return Rule{}, fmt.Errorf("rule %q: %w", text, err)
		}
		r.glob, r.named = g, namedSegments(glob)
	default:
		return Rule{}, fmt.Errorf("rule %q: unknown kind %q; want shell or edit", text, kind)
	}
	return r, nil
}

// Call is what a rule is matched against: a shell command, or a file a
// write or edit changes (relative to the workspace, slash separated).
type Call struct {
	Command string // shell
	Path    string // edit
}

// Matches reports whether the rule allows the call.
func (r Rule) Matches(c Call) bool {
	switch r.kind {
	case KindShell:
		argv, ok := Argv(c.Command)
		if !ok || len(argv) < len(r.prefix) || (!r.open && len(argv) != len(r.prefix)) {
			return false
		}
		for i, w := range r.prefix {
			if argv[i] != w {
				return false
			}
		}
		return c.Command != ""
	case KindEdit:
		return c.Path != "" && r.glob.Match(c.Path) && r.reachesControl(c.Path)
	}
	return false
}

// Set is a parsed allow list.
type Set []Rule

// ParseAll parses every rule; the error names the first bad one.
func ParseAll(texts []string) (Set, error) {
	set := make(Set, 0, len(texts))
	for _, t := range texts {
		r, err := Parse(t)
		if err != nil {
			return nil, err
		}
		set = append(set, r)
	}
	return set, nil
}

// Only is the rules of s whose text is listed, in s's order.
func (s Set) Only(texts []string) Set {
	out := make(Set, 0, len(s))
	for _, r := range s {
		if slices.Contains(texts, r.text) {
			out = append(out, r)
		}
	}
	return out
}

// Allows returns the first rule that allows the call.
func (s Set) Allows(c Call) (Rule, bool) {
	for _, r := range s {
		if r.Matches(c) {
			return r, true
		}
	}
	return Rule{}, false
}

// Suggest is the rule an approval prompt offers for a call: the program
// and its subcommand for a shell command ("shell:ls *", "shell:ip
// addr *"), but only the exact command for one of Runners ("shell:git
// status", never "shell:git *") or a program the workspace holds
// ("shell:./gradlew build"); the directory of an edited file
// ("edit:docs/**", or the file itself at the top). It is "" when no rule
// fits, as for a command with shell syntax, a runner's command with a
// word a rule cannot spell ("sh -c 'a b'"), or a file in one of
// ControlNames.
func Suggest(c Call) string {
	switch {
	case c.Command != "":
		argv, ok := Argv(c.Command)
		if !ok {
			return ""
		}
		rule := KindShell + ":" + strings.Join(argv, " ")
		if !exactOnly(argv[0]) {
			words := argv[:1]
			if len(argv) > 1 && plainWord(argv[1]) {
				words = argv[:2]
			}
			rule = KindShell + ":" + strings.Join(words, " ") + " " + wildcard
		}
		if r, err := Parse(rule); err != nil || !r.Matches(c) {
			return ""
		}
		return rule
	case c.Path != "":
		if len(controlSegments(c.Path)) > 0 {
			return ""
		}
		dir := filepath.ToSlash(filepath.Dir(c.Path))
		rule := KindEdit + ":" + globQuote(c.Path)
		if dir != "." {
			rule = KindEdit + ":" + globQuote(dir) + "/**"
		}
		if _, err := Parse(rule); err != nil {
			return ""
		}
		return rule
	}
	return ""
}

// globQuote escapes the characters a glob would read as wildcards, so a
// suggested rule names exactly the directory or file asked about.
func globQuote(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
