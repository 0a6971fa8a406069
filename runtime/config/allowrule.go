package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"scv/runtime/approvals"
)

// AppendAllowRule adds rule to [approvals] allow in the user's file in
// home ("" for Home(); never a project's), creating the file or the table when needed.
// The rest of the file is kept byte for byte: the rule is spliced into the
// text, and the result is decoded again and must equal the old values
// plus the rule, or nothing is written. The file is replaced atomically.
// It returns the file's path; a rule already listed is not added again.
// Either way the rule is recorded as the user's (see RuleLedgerName): this
// is how the user confirms a rule that appeared while a tool call ran.
func AppendAllowRule(home, rule string) (string, error) {
	if _, err := approvals.Parse(rule); err != nil {
		return "", err
	}
	home, err := orHome(home)
	if err != nil {
		return "", err
	}
	path := UserFile(home)
	unlock, err := lockUserFile(home)
	if err != nil {
		return path, fmt.Errorf("lock %s: %w", path, err)
	}
	defer unlock()
	if err := appendAllowRuleLocked(path, rule); err != nil {
		return path, err
	}
	if err := updateRuleLedgerLocked(home, func(l *ruleLedger, _ bool) { l.trust(rule) }); err != nil {
		return path, fmt.Errorf("record %q as yours in %s: %w", rule, RuleLedgerFile(home), err)
	}
	return path, nil
}

// appendAllowRuleLocked is AppendAllowRule's edit of the file, under its lock.
func appendAllowRuleLocked(path, rule string) error {
	data, info, err := readFile(path)
	mode := fs.FileMode(0o600)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		data = nil
	case err != nil:
		return err
	default:
		mode = info.Mode().Perm()
	}
	before, err := decodeRaw(data, path)
	if err != nil {
		return err
	}
	allow, err := allowList(before, path)
	if err != nil {
		return err
	}
	if slices.Contains(allow, rule) {
		return nil
	}
	text, err := spliceAllowRule(string(data), rule, before)
	if err != nil {
		return fmt.Errorf("add %q to approvals.allow in %s: %w; add it by hand", rule, path, err)
	}
	after, err := decodeRaw([]byte(text), path)
	if err != nil {
		return fmt.Errorf("add %q to approvals.allow in %s: the edit would not parse (%v); add it by hand", rule, path, err)
	}
	if err := checkOnlyRuleAdded(before, after, append(allow, rule)); err != nil {
		return fmt.Errorf("add %q to approvals.allow in %s: %w; add it by hand", rule, path, err)
	}
	// A user file linked into the home (from a dotfiles repository) is
	// written where the link leads, so the link stays.
	dest := path
	if real, err := filepath.EvalSymlinks(path); err == nil {
		dest = real
	}
	if err := writeFileAtomic(dest, []byte(text), mode); err != nil {
		return fmt.Errorf("write %s: %w", dest, err)
	}
	return nil
}

func decodeRaw(data []byte, path string) (map[string]any, error) {
	out := map[string]any{}
	if _, err := toml.Decode(string(data), &out); err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return out, nil
}

// allowList reads approvals.allow from a decoded file.
func allowList(raw map[string]any, path string) ([]string, error) {
	table, ok := raw["approvals"]
	if !ok {
		return nil, nil
	}
	t, ok := table.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("approvals in %s is not a table", path)
	}
	list, ok := t["allow"]
	if !ok {
		return nil, nil
	}
	items, ok := list.([]any)
	if !ok {
		return nil, fmt.Errorf("approvals.allow in %s is not a list", path)
	}
	var out []string
	for _, it := range items {
		s, ok := it.(string)
		if !ok {
			return nil, fmt.Errorf("approvals.allow in %s holds a value that is not a string", path)
		}
		out = append(out, s)
	}
	return out, nil
}

// checkOnlyRuleAdded holds the edit to its purpose: every other value
// decodes as before, and the list is exactly want.
func checkOnlyRuleAdded(before, after map[string]any, want []string) error {
	got, err := allowList(after, "")
	if err != nil || !slices.Equal(got, want) {
		return fmt.Errorf("the edit would give approvals.allow = %q", got)
	}
	strip := func(m map[string]any) map[string]any {
		out := make(map[string]any, len(m))
		for k, v := range m {
			out[k] = v
		}
		if t, ok := m["approvals"].(map[string]any); ok {
			rest := make(map[string]any, len(t))
			for k, v := range t {
				if k != "allow" {
					rest[k] = v
				}
			}
			out["approvals"] = rest
			if len(rest) == 0 {
				delete(out, "approvals")
			}
		}
		return out
	}
	if !reflect.DeepEqual(strip(before), strip(after)) {
		return errors.New("the edit would change other settings")
	}
	return nil
}

var (
	approvalsHeader = regexp.MustCompile(`(?m)^[ \t]*\[[ \t]*approvals[ \t]*\][ \t]*(#.*)?$`)
	anyHeader       = regexp.MustCompile(`(?m)^[ \t]*\[`)
	allowKey        = regexp.MustCompile(`(?m)^[ \t]*allow[ \t]*=[ \t]*`)
)

// spliceAllowRule returns text with rule added to approvals.allow: a new
// [approvals] table at the end, an allow key under an existing header, or
// the rule before the closing bracket of the existing list.
func spliceAllowRule(text, rule string, raw map[string]any) (string, error) {
	quoted := strconv.Quote(rule)
	loc := approvalsHeader.FindStringIndex(text)
	if loc == nil {
		if _, ok := raw["approvals"]; ok {
			return "", errors.New("[approvals] is written in a form this edit does not handle")
		}
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		if text != "" {
			text += "\n"
		}
		return text + "[approvals]\nallow = [" + quoted + "]\n", nil
	}
	// The table's body runs to the next header.
	start := loc[1]
	end := len(text)
	if next := anyHeader.FindStringIndex(text[start:]); next != nil {
		end = start + next[0]
	}
	body := text[start:end]
	key := allowKey.FindStringIndex(body)
	if key == nil {
		return text[:start] + "\nallow = [" + quoted + "]" + text[start:], nil
	}
	open := start + key[1]
	if open >= len(text) || text[open] != '[' {
		return "", errors.New("approvals.allow is not written as a list")
	}
	closing, empty, trailingComma, err := listEnd(text, open)
	if err != nil {
		return "", err
	}
	insert := ", " + quoted
	switch {
	case empty:
		insert = quoted
	case trailingComma:
		insert = " " + quoted
	}
	return text[:closing] + insert + text[closing:], nil
}

// listEnd finds the bracket closing the TOML array opening at text[open],
// skipping strings and comments, and says whether the array is empty and
// whether its last item is followed by a comma.
func listEnd(text string, open int) (closing int, empty, trailingComma bool, err error) {
	depth := 0
	last := byte(0) // the last significant character before the close
	for i := open; i < len(text); i++ {
		c := text[i]
		switch c {
		case '#':
			nl := strings.IndexByte(text[i:], '\n')
			if nl < 0 {
				return 0, false, false, errors.New("unterminated list")
			}
			i += nl
			continue
		case '"', '\'':
			delim := string(c)
			if strings.HasPrefix(text[i:], strings.Repeat(delim, 3)) {
				return 0, false, false, errors.New("multi-line strings in approvals.allow")
			}
			j := i + 1
			for j < len(text) && text[j] != c {
				if c == '"' && text[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(text) {
				return 0, false, false, errors.New("unterminated string")
			}
			i = j
			last = c
			continue
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				return i, last == 0 || last == '[', last == ',', nil
			}
		case ' ', '\t', '\n', '\r':
			continue
		}
		if i != open {
			last = c
		}
	}
	return 0, false, false, errors.New("unterminated list")
}

// writeFileAtomic replaces path with data: a temporary file in the same
// directory, synced, then renamed over it.
func writeFileAtomic(path string, data []byte, mode fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".config-*.toml")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly after the rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
