package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

const (
	// maxGrepLineBytes is how much of one line grep searches; the rest of
	// a longer line (minified code, data) is skipped.
	maxGrepLineBytes = 64 << 10
	// maxGrepLineShown is how much of a matching line grep prints.
	maxGrepLineShown = 300
)

// errGrepFull stops a walk once the match or output budget is spent.
var errGrepFull = errors.New("grep budget spent")

type grepTool struct {
	workspaceTool
}

type grepArgs struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
	Glob    string `json:"glob"`
}

func newGrep(ws *Workspace, limits Limits) *grepTool {
	return &grepTool{bind(ws, limits, spec{
		name: "grep",
		desc: "Search text files for lines matching a regular expression (RE2 syntax). " +
			"Prints path:line: text for each match. Skips .git directories and binary files.",
		params: params{
			{name: "pattern", typ: typeString, required: true, desc: "Regular expression (RE2 syntax) matched against each line."},
			{name: "path", typ: typeString, desc: "File or directory to search, relative to the workspace root (default \".\")."},
			{name: "glob", typ: typeString, desc: "Only search files whose name matches this glob (e.g. \"*.go\"); with a \"/\" it matches the workspace-relative path and may use \"**\"."},
		},
		risk: RiskReadOnly,
	})}
}

func (t *grepTool) Summary(args json.RawMessage) string {
	var a grepArgs
	if err := t.decode(args, &a); err != nil {
		return validUTF8(err.Error())
	}
	s := fmt.Sprintf("grep %q in %s", a.Pattern, orDot(a.Path))
	if a.Glob != "" {
		s += fmt.Sprintf(" (files matching %s)", a.Glob)
	}
	return validUTF8(s)
}

// grepRun is the state of one search.
type grepRun struct {
	re      *regexp.Regexp
	nameGlb string      // matched against base names
	pathGlb globPattern // matched against workspace-relative paths
	max     int
	matches int
	out     lineWriter
}

func (t *grepTool) Run(ctx context.Context, args json.RawMessage) Result {
	var a grepArgs
	if err := t.decode(args, &a); err != nil {
		return Result{Output: validUTF8(err.Error())}
	}
	if a.Pattern == "" {
		return t.fail("pattern must not be empty")
	}
	re, err := regexp.Compile(a.Pattern)
	if err != nil {
		return t.fail("invalid pattern %q: %v", a.Pattern, err)
	}
	g := &grepRun{re: re, max: t.limits.MaxGrepMatches, out: lineWriter{max: t.limits.MaxOutputBytes}}
	if strings.Contains(a.Glob, "/") {
		if g.pathGlb, err = parseGlob(a.Glob); err != nil {
			return t.fail("glob: %v", err)
		}
	} else if a.Glob != "" {
		if _, err := path.Match(a.Glob, a.Glob); err != nil {
			return t.fail("glob %q is malformed", a.Glob)
		}
		g.nameGlb = a.Glob
	}
	root, name, err := t.ws.locate(orDot(a.Path))
	if err != nil {
		return t.fail("%v", err)
	}
	defer root.Close()
	info, err := root.Stat(name)
	if err != nil {
		return t.fail("%v", err)
	}
	if info.IsDir() {
		// The walk reads directories through the root and does not follow
		// symlinks, so nothing outside the workspace is listed or searched
		// even if a directory is swapped for a link mid-walk.
		start := filepath.ToSlash(name)
		err = fs.WalkDir(root.FS(), start, func(p string, d fs.DirEntry, err error) error {
			if cerr := ctx.Err(); cerr != nil {
				return cerr
			}
			if err != nil {
				return nil // unreadable entries are skipped, not fatal
			}
			if d.IsDir() {
				if d.Name() == skipDirName && p != start {
					return fs.SkipDir
				}
				return nil
			}
			// Symlinks are not followed: their targets may be outside.
			if !d.Type().IsRegular() || !g.wanted(p) {
				return nil
			}
			f, _, err := openRegular(root, filepath.FromSlash(p))
			if err != nil {
				return nil
			}
			defer f.Close()
			if sniffFile(f) != nil {
				return nil // binary files are skipped
			}
			return g.file(ctx, f, p)
		})
	} else {
		// A file named outright is checked like read_file does, so a
		// binary one is reported rather than silently matching nothing.
		f, oerr := openText(root, name)
		if oerr != nil {
			return t.fail("%v", oerr)
		}
		err = g.file(ctx, f, filepath.ToSlash(name))
		f.Close()
	}
	truncated := errors.Is(err, errGrepFull)
	if err != nil && !truncated {
		return t.fail("%v", err)
	}
	if g.matches == 0 {
		return Result{Success: true, Output: "no matches"}
	}
	out := g.out.String()
	if truncated {
		out += fmt.Sprintf("[truncated: showed %s; narrow the pattern, path or glob]", plural(g.matches, "match"))
	}
	return Result{Success: true, Output: validUTF8(out), Truncated: truncated}
}

// wanted reports whether the file at the workspace-relative slash path p
// is to be searched.
func (g *grepRun) wanted(p string) bool {
	if g.nameGlb != "" {
		ok, _ := path.Match(g.nameGlb, path.Base(p))
		return ok
	}
	if g.pathGlb != nil {
		return g.pathGlb.match(p)
	}
	return true
}

// file searches one opened file, named rel in the output. A read error
// ends this file only: one unreadable file should not spoil a tree-wide
// search.
func (g *grepRun) file(ctx context.Context, f *os.File, rel string) error {
	r := bufio.NewReader(f)
	for n := 1; ; n++ {
		line, _, err := nextLine(r, maxGrepLineBytes)
		if len(line) > 0 && g.re.Match(trimEOL(line)) {
			if g.matches == g.max {
				return errGrepFull
			}
			text := string(trimEOL(line))
			if len(text) > maxGrepLineShown {
				text = cutUTF8(text, maxGrepLineShown) + "…"
			}
			if !g.out.add(fmt.Sprintf("%s:%d: %s", rel, n, text)) {
				return errGrepFull
			}
			g.matches++
		}
		if err != nil {
			// io.EOF, or a read error that ends this file only.
			return nil
		}
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
}

func trimEOL(line []byte) []byte {
	return bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
}
