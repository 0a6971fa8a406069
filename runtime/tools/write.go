package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
)

const (
	// maxEditFileBytes bounds the files edit_file rewrites in memory and
	// the old content write_file reads to show a diff.
	maxEditFileBytes = 8 << 20
	newFileMode      = 0o644
	newDirMode       = 0o755
)

// change is a planned write: the file, what it holds now and what it will.
type change struct {
	ws        *Workspace
	path, rel string // as given, and workspace-relative
	exists    bool
	binary    bool // old content is binary or too large to diff
	old, new  string
}

func (c change) diff() string { return unifiedDiff(c.rel, c.old, c.new) }

// stat counts added and removed lines for a one-line report.
func (c change) stat() string {
	added, removed := 0, 0
	for _, e := range diffLines(splitLines(c.old), splitLines(c.new)) {
		switch e.kind {
		case editInsert:
			added++
		case editDelete:
			removed++
		}
	}
	return fmt.Sprintf("+%d -%d lines", added, removed)
}

// summary renders a change for an approval prompt, capped at max bytes.
func (c change) summary(tool string, max int) string {
	var head, body string
	switch {
	case c.binary:
		head = fmt.Sprintf("%s %s: replaces a binary or very large file with %d bytes", tool, c.rel, len(c.new))
	case c.old == c.new:
		head = fmt.Sprintf("%s %s: no changes", tool, c.rel)
	case !c.exists:
		head, body = fmt.Sprintf("%s %s (new file)", tool, c.rel), c.diff()
	default:
		head, body = fmt.Sprintf("%s %s", tool, c.rel), c.diff()
	}
	s := head
	if body != "" {
		s += "\n" + body
	}
	if len(s) > max {
		s = cutUTF8(s, max) + "\n[diff truncated]"
	}
	return validUTF8(s)
}

// readCurrent loads the file a write would replace, if there is one.
func readCurrent(ws *Workspace, path string) (change, error) {
	root, name, err := ws.locate(path)
	if err != nil {
		return change{}, err
	}
	defer root.Close()
	c := change{ws: ws, path: path, rel: filepath.ToSlash(name)}
	f, info, err := openRegular(root, name)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, err
	}
	defer f.Close()
	c.exists = true
	if info.Size() > maxEditFileBytes {
		c.binary = true
		return c, nil
	}
	if err := sniffFile(f); err != nil {
		if errors.Is(err, errBinary) {
			c.binary = true
			return c, nil
		}
		return c, fmt.Errorf("read %s: %w", path, err)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxEditFileBytes+1))
	if err != nil {
		return c, fmt.Errorf("read %s: %w", path, err)
	}
	c.old = string(data)
	return c, nil
}

// fromClient replaces the old content read from disk with the client's
// (its unsaved buffer) when ctx carries a FileAccess; planning on disk
// first keeps the confinement, existence and binary checks of the disk.
func (c change) fromClient(ctx context.Context) (change, error) {
	fa := fileAccessFrom(ctx)
	if fa == nil || !c.exists || c.binary {
		return c, nil
	}
	real, err := c.ws.Resolve(c.path)
	if err != nil {
		return c, err
	}
	text, err := fa.ReadText(ctx, real, 0, 0)
	switch {
	case unsupported(err):
		return c, nil
	case err != nil:
		return c, fmt.Errorf("read %s: %w", c.rel, err)
	}
	c.old = text
	return c, nil
}

// apply writes the new content: through the client's FileAccess when ctx
// carries one, else through the workspace root, creating missing parent
// directories; see writeAtomic.
func (c change) apply(ctx context.Context) error {
	if fa := fileAccessFrom(ctx); fa != nil {
		real, err := c.ws.Resolve(c.path)
		if err != nil {
			return err
		}
		err = fa.WriteText(ctx, real, c.new)
		if !unsupported(err) {
			if err != nil {
				return fmt.Errorf("write %s: %w", c.rel, err)
			}
			return nil
		}
	}
	root, name, err := c.ws.locate(c.path)
	if err != nil {
		return err
	}
	defer root.Close()
	if err := writeAtomic(root, name, []byte(c.new)); err != nil {
		return fmt.Errorf("write %s: %w", c.rel, err)
	}
	return nil
}

type writeFileTool struct {
	workspaceTool
}

type writeFileArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

func newWriteFile(ws *Workspace, limits Limits) *writeFileTool {
	return &writeFileTool{bind(ws, limits, spec{
		name: "write_file",
		desc: "Create or overwrite a file in the workspace with the given content. Missing parent directories are created.",
		params: params{
			{name: "path", typ: typeString, required: true, desc: "File path, relative to the workspace root."},
			{name: "content", typ: typeString, required: true, desc: "The complete new content of the file."},
		},
		risk: RiskWrite,
	})}
}

func (t *writeFileTool) plan(ctx context.Context, args json.RawMessage) (change, error) {
	var a writeFileArgs
	if err := t.decode(args, &a); err != nil {
		return change{}, err
	}
	c, err := readCurrent(t.ws, a.Path)
	if err == nil {
		c, err = c.fromClient(ctx)
	}
	if err != nil {
		return change{}, fmt.Errorf("%s: %w", t.name, err)
	}
	c.new = a.Content
	return c, nil
}

func (t *writeFileTool) Summary(args json.RawMessage) string {
	c, err := t.plan(context.Background(), args)
	return t.summarize(c, err)
}

// ReplacedText implements Replacer.
func (t *writeFileTool) ReplacedText(args json.RawMessage, max int) (string, bool) {
	var a writeFileArgs
	if t.decode(args, &a) != nil {
		return "", false
	}
	c, err := readCurrent(t.ws, a.Path)
	if err != nil || !c.exists || c.binary || len(c.old) > max {
		return "", false
	}
	return c.old, true
}

func (t *writeFileTool) Run(ctx context.Context, args json.RawMessage) Result {
	c, err := t.plan(ctx, args)
	return t.commit(ctx, c, err, func() string {
		switch {
		case !c.exists:
			return fmt.Sprintf("created %s (%s)", c.rel, plural(len(c.new), "byte"))
		case c.binary:
			return fmt.Sprintf("replaced %s (%s)", c.rel, plural(len(c.new), "byte"))
		}
		return fmt.Sprintf("wrote %s (%s, %s)", c.rel, plural(len(c.new), "byte"), c.stat())
	})
}

type editFileTool struct {
	workspaceTool
}

type editFileArgs struct {
	Path       string `json:"path"`
	Old        string `json:"old"`
	New        string `json:"new"`
	ReplaceAll bool   `json:"replace_all"`
}

func newEditFile(ws *Workspace, limits Limits) *editFileTool {
	return &editFileTool{bind(ws, limits, spec{
		name: "edit_file",
		desc: "Replace exact text in an existing file. \"old\" must occur exactly once (include surrounding lines to make it unique) unless replace_all is true.",
		params: params{
			{name: "path", typ: typeString, required: true, desc: "File path, relative to the workspace root."},
			{name: "old", typ: typeString, required: true, desc: "The exact text to replace, including whitespace."},
			{name: "new", typ: typeString, required: true, desc: "The replacement text."},
			{name: "replace_all", typ: typeBoolean, desc: "Replace every occurrence instead of requiring exactly one (default false)."},
		},
		risk: RiskWrite,
	})}
}

// plan works out the edited content; count is how many places change.
func (t *editFileTool) plan(ctx context.Context, args json.RawMessage) (c change, count int, err error) {
	var a editFileArgs
	if err := t.decode(args, &a); err != nil {
		return c, 0, err
	}
	if a.Old == "" {
		return c, 0, fmt.Errorf("%s: argument \"old\" must not be empty", t.name)
	}
	if a.Old == a.New {
		return c, 0, fmt.Errorf("%s: \"old\" and \"new\" are identical", t.name)
	}
	c, err = readCurrent(t.ws, a.Path)
	if err == nil {
		c, err = c.fromClient(ctx)
	}
	switch {
	case err != nil:
		return c, 0, fmt.Errorf("%s: %w", t.name, err)
	case !c.exists:
		return c, 0, fmt.Errorf("%s: %s does not exist (use write_file to create it)", t.name, a.Path)
	case c.binary:
		return c, 0, fmt.Errorf("%s: %s is binary or larger than %d bytes", t.name, a.Path, maxEditFileBytes)
	}
	count = strings.Count(c.old, a.Old)
	switch {
	case count == 0:
		return c, 0, fmt.Errorf("%s: old text not found in %s", t.name, a.Path)
	case count > 1 && !a.ReplaceAll:
		return c, 0, fmt.Errorf("%s: old text occurs %d times in %s; include more surrounding text to make it unique, or set replace_all", t.name, count, a.Path)
	}
	c.new = strings.ReplaceAll(c.old, a.Old, a.New)
	return c, count, nil
}

func (t *editFileTool) Summary(args json.RawMessage) string {
	c, _, err := t.plan(context.Background(), args)
	return t.summarize(c, err)
}

func (t *editFileTool) Run(ctx context.Context, args json.RawMessage) Result {
	c, count, err := t.plan(ctx, args)
	return t.commit(ctx, c, err, func() string {
		return fmt.Sprintf("edited %s: replaced %s (%s)", c.rel, plural(count, "occurrence"), c.stat())
	})
}

// summarize is a planned change as its approval prompt shows it: the diff,
// or why the change cannot be made.
func (t workspaceTool) summarize(c change, err error) string {
	if err != nil {
		return validUTF8(err.Error())
	}
	return c.summary(t.name, t.limits.MaxOutputBytes)
}

// commit writes a planned change unless planning failed or ctx ended;
// done describes the change once it is on disk.
func (t workspaceTool) commit(ctx context.Context, c change, err error, done func() string) Result {
	if err != nil {
		return Result{Output: validUTF8(err.Error())}
	}
	if ctx.Err() != nil {
		return t.fail("cancelled")
	}
	if err := c.apply(ctx); err != nil {
		return t.fail("%v", err)
	}
	return Result{Success: true, Output: validUTF8(done())}
}
