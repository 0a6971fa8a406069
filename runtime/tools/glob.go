package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// skipDirName is never descended into by grep and glob: it is large and
// not the project's own text.
const skipDirName = ".git"

// globPattern is a slash-separated pattern where a "**" segment matches
// any number of path segments and other segments follow path.Match.
type globPattern []string

func parseGlob(pattern string) (globPattern, error) {
	if pattern == "" {
		return nil, errors.New("empty pattern")
	}
	if strings.HasPrefix(pattern, "/") {
		return nil, fmt.Errorf("pattern %q must be relative to the workspace root", pattern)
	}
	var segs globPattern
	for _, seg := range strings.Split(pattern, "/") {
		switch seg {
		case "", ".":
			continue
		case "..":
			return nil, fmt.Errorf("pattern %q must not contain \"..\"", pattern)
		case "**":
			if len(segs) > 0 && segs[len(segs)-1] == "**" {
				continue // a/**/**/b is a/**/b
			}
		default:
			if _, err := path.Match(seg, seg); err != nil {
				return nil, fmt.Errorf("pattern %q: malformed segment %q", pattern, seg)
			}
		}
		segs = append(segs, seg)
	}
	if len(segs) == 0 {
		return nil, fmt.Errorf("pattern %q matches nothing", pattern)
	}
	return segs, nil
}

// match reports whether a slash-separated relative path matches.
func (g globPattern) match(rel string) bool {
	return matchSegs(g, strings.Split(rel, "/"), false)
}

// mayContain reports whether something under the directory rel could
// match, so walks can skip directories that cannot.
func (g globPattern) mayContain(rel string) bool {
	if rel == "." || rel == "" {
		return true
	}
	return matchSegs(g, strings.Split(rel, "/"), true)
}

// literalPrefix is the leading run of segments without wildcards: the
// directory a walk can start from.
func (g globPattern) literalPrefix() (dir string, rest globPattern) {
	i := 0
	for i < len(g)-1 && !strings.ContainsAny(g[i], `*?[\`) {
		i++
	}
	return strings.Join(g[:i], "/"), g[i:]
}

func matchSegs(pat, name []string, prefix bool) bool {
	for len(pat) > 0 {
		if len(name) == 0 {
			// Only "**" segments can match nothing.
			return prefix || len(pat) == 1 && pat[0] == "**"
		}
		if pat[0] == "**" {
			if prefix {
				return true
			}
			for i := 0; i <= len(name); i++ {
				if matchSegs(pat[1:], name[i:], false) {
					return true
				}
			}
			return false
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

type globTool struct {
	workspaceTool
}

type globArgs struct {
	Pattern string `json:"pattern"`
}

func newGlob(ws *Workspace, limits Limits) *globTool {
	return &globTool{bind(ws, limits, spec{
		name: "glob",
		desc: "Find files and directories whose workspace-relative path matches a glob pattern. " +
			"\"*\", \"?\" and \"[...]\" match within one path segment; a \"**\" segment matches any number of directories (e.g. \"src/**/*.go\"). " +
			"Directories end with \"/\". .git directories are skipped unless the pattern starts inside one.",
		params: params{
			{name: "pattern", typ: typeString, required: true, desc: "Glob pattern relative to the workspace root."},
		},
		risk: RiskReadOnly,
	})}
}

func (t *globTool) Summary(args json.RawMessage) string {
	var a globArgs
	if err := t.decode(args, &a); err != nil {
		return validUTF8(err.Error())
	}
	return validUTF8("glob " + a.Pattern)
}

func (t *globTool) Run(ctx context.Context, args json.RawMessage) Result {
	var a globArgs
	if err := t.decode(args, &a); err != nil {
		return Result{Output: validUTF8(err.Error())}
	}
	pat, err := parseGlob(a.Pattern)
	if err != nil {
		return t.fail("%v", err)
	}
	base, _ := pat.literalPrefix()
	root, name, err := t.ws.locate(orDot(base))
	if err != nil {
		return t.fail("%v", err)
	}
	defer root.Close()
	start := filepath.ToSlash(name)
	if _, err := root.Stat(name); err != nil {
		return Result{Success: true, Output: "no matches"}
	}
	var matches []string
	truncated := false
	// The walk reads directories through the root and does not follow
	// symlinks; see grep.
	err = fs.WalkDir(root.FS(), start, func(p string, d fs.DirEntry, err error) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err != nil {
			return nil // unreadable entries are skipped, not fatal
		}
		// Matches are named as the pattern names them: under base, even
		// when base is a symlink to another directory of the workspace.
		rel := base
		if p != start {
			sub := p
			if start != "." {
				sub = strings.TrimPrefix(p, start+"/")
			}
			rel = path.Join(base, sub)
		}
		if d.IsDir() {
			if d.Name() == skipDirName && p != start {
				return fs.SkipDir
			}
			if p != start && !pat.mayContain(rel) {
				return fs.SkipDir
			}
		}
		if rel == "" || !pat.match(rel) {
			return nil
		}
		if len(matches) == maxListEntries {
			truncated = true
			return fs.SkipAll
		}
		if d.IsDir() {
			rel += "/"
		}
		matches = append(matches, rel)
		return nil
	})
	if err != nil {
		return t.fail("%v", err)
	}
	if len(matches) == 0 {
		return Result{Success: true, Output: "no matches"}
	}
	sort.Strings(matches)
	w := lineWriter{max: t.limits.MaxOutputBytes}
	shown := 0
	for _, m := range matches {
		if !w.add(m) {
			break
		}
		shown++
	}
	out := w.String()
	if truncated || w.truncated {
		truncated = true
		out += fmt.Sprintf("[truncated: showed %d matches; narrow the pattern]", shown)
	}
	return Result{Success: true, Output: validUTF8(out), Truncated: truncated}
}

// Glob is a workspace pattern as glob uses it ("docs/**", "*.go"): slash
// separated, relative, "**" matching any number of segments.
type Glob struct{ p globPattern }

// ParseGlob checks a pattern: relative to the workspace, without "..".
func ParseGlob(pattern string) (Glob, error) {
	p, err := parseGlob(pattern)
	return Glob{p}, err
}

// Match reports whether a slash-separated path relative to the workspace
// matches.
func (g Glob) Match(rel string) bool { return g.p != nil && g.p.match(rel) }
