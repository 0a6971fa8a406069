package tools

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"
)

// maxListEntries bounds how many names list_dir and glob return.
const maxListEntries = 1000

type readFileTool struct {
	workspaceTool
}

type readFileArgs struct {
	Path   string `json:"path"`
	Offset int    `json:"offset"`
	Limit  int    `json:"limit"`
}

func newReadFile(ws *Workspace, limits Limits) *readFileTool {
	return &readFileTool{bind(ws, limits, spec{
		name: "read_file",
		desc: "Read a UTF-8 text file in the workspace. Large files are cut; use offset and limit to page through them.",
		params: params{
			{name: "path", typ: typeString, required: true, desc: "File path, relative to the workspace root."},
			{name: "offset", typ: typeInteger, desc: "1-based number of the first line to return (default 1)."},
			{name: "limit", typ: typeInteger, desc: "Maximum number of lines to return (default: to the end of the file)."},
		},
		risk: RiskReadOnly,
	})}
}

func (t *readFileTool) Summary(args json.RawMessage) string {
	var a readFileArgs
	if err := t.decode(args, &a); err != nil {
		return validUTF8(err.Error())
	}
	s := "read_file " + a.Path
	if a.Offset > 1 || a.Limit > 0 {
		s += fmt.Sprintf(" (from line %d", max(a.Offset, 1))
		if a.Limit > 0 {
			s += fmt.Sprintf(", %s", plural(a.Limit, "line"))
		}
		s += ")"
	}
	return validUTF8(s)
}

func (t *readFileTool) Run(ctx context.Context, args json.RawMessage) Result {
	var a readFileArgs
	if err := t.decode(args, &a); err != nil {
		return Result{Output: validUTF8(err.Error())}
	}
	if a.Offset < 0 {
		return t.fail("offset must be 1 or more, got %d", a.Offset)
	}
	if a.Limit < 0 {
		return t.fail("limit must not be negative, got %d", a.Limit)
	}
	first := max(a.Offset, 1)
	// Through a client's FileAccess the text already starts at first.
	r, fromClient, err := t.readClient(ctx, a.Path, first, a.Limit)
	if err != nil {
		return t.fail("%v", err)
	}
	if !fromClient {
		f, err := t.ws.openText(a.Path)
		if err != nil {
			return t.fail("%v", err)
		}
		defer f.Close()
		r = bufio.NewReader(f)
	}
	for n := 1; n < first && !fromClient; n++ {
		line, long, err := nextLine(r, 0)
		if err != nil && (len(line) == 0 && !long || !errors.Is(err, io.EOF)) {
			if errors.Is(err, io.EOF) {
				return t.fail("offset %d is past the end of %s (%s)", first, a.Path, plural(n-1, "line"))
			}
			return t.fail("read %s: %v", a.Path, err)
		}
		if err := ctx.Err(); err != nil {
			return t.fail("cancelled")
		}
	}

	budget := t.limits.MaxReadBytes
	var out strings.Builder
	var note string
	truncated := false
	lineNo := first
	for ; a.Limit == 0 || lineNo < first+a.Limit; lineNo++ {
		line, long, err := nextLine(r, budget-out.Len()+1)
		if err != nil && !errors.Is(err, io.EOF) {
			return t.fail("read %s: %v", a.Path, err)
		}
		if len(line) == 0 && !long {
			if lineNo == first && first > 1 {
				return t.fail("offset %d is past the end of %s (%s)", first, a.Path, plural(first-1, "line"))
			}
			break // end of file
		}
		if out.Len()+len(line) > budget || long {
			truncated = true
			if out.Len() == 0 {
				// A single line longer than the budget: show its start.
				out.WriteString(cutUTF8(string(line), budget))
				note = fmt.Sprintf("[truncated: line %d is longer than %d bytes and was cut; continue with offset=%d]", lineNo, budget, lineNo+1)
			} else {
				note = fmt.Sprintf("[truncated at %d bytes: showed lines %d-%d; continue with offset=%d]", budget, first, lineNo-1, lineNo)
			}
			break
		}
		out.Write(line)
		if errors.Is(err, io.EOF) {
			lineNo++
			break
		}
		if err := ctx.Err(); err != nil {
			return t.fail("cancelled")
		}
	}
	if !truncated && a.Limit > 0 && lineNo == first+a.Limit {
		if _, err := r.Peek(1); err == nil {
			note = fmt.Sprintf("[showed lines %d-%d; more follow: continue with offset=%d]", first, lineNo-1, lineNo)
		}
	}
	text := out.String()
	if text == "" && note == "" {
		text = "(empty file)"
	}
	if note != "" {
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		text += note
	}
	return Result{Success: true, Output: validUTF8(text), Truncated: truncated}
}

// readClient reads through the FileAccess ctx carries, if any, after the
// same confinement as on disk. One line past limit is asked for, so the
// "more follow" note works as on disk. ok is false when the disk is to be
// read instead.
func (t *readFileTool) readClient(ctx context.Context, path string, first, limit int) (r *bufio.Reader, ok bool, err error) {
	fa := fileAccessFrom(ctx)
	if fa == nil {
		return nil, false, nil
	}
	real, err := t.ws.Resolve(path)
	if err != nil {
		return nil, false, err
	}
	if limit > 0 {
		limit++
	}
	text, err := fa.ReadText(ctx, real, first, limit)
	switch {
	case unsupported(err):
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("read %s: %w", path, err)
	}
	return bufio.NewReader(strings.NewReader(text)), true, nil
}

type listDirTool struct {
	workspaceTool
}

type listDirArgs struct {
	Path string `json:"path"`
}

func newListDir(ws *Workspace, limits Limits) *listDirTool {
	return &listDirTool{bind(ws, limits, spec{
		name: "list_dir",
		desc: "List the entries of a directory in the workspace, sorted by name; directories end with \"/\".",
		params: params{
			{name: "path", typ: typeString, desc: "Directory path, relative to the workspace root (default \".\")."},
		},
		risk: RiskReadOnly,
	})}
}

func (t *listDirTool) Summary(args json.RawMessage) string {
	var a listDirArgs
	if err := t.decode(args, &a); err != nil {
		return validUTF8(err.Error())
	}
	return validUTF8("list_dir " + orDot(a.Path))
}

func (t *listDirTool) Run(ctx context.Context, args json.RawMessage) Result {
	var a listDirArgs
	if err := t.decode(args, &a); err != nil {
		return Result{Output: validUTF8(err.Error())}
	}
	path := orDot(a.Path)
	entries, err := t.readDir(path)
	if err != nil {
		return t.fail("%v", err)
	}
	if len(entries) == 0 {
		return Result{Success: true, Output: "(empty directory)"}
	}
	w := lineWriter{max: t.limits.MaxOutputBytes}
	shown := 0
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() {
			name += "/"
		}
		if shown == maxListEntries || !w.add(name) {
			w.truncated = true
			break
		}
		shown++
	}
	out := w.String()
	if w.truncated {
		out += fmt.Sprintf("[truncated: showed %d of %d entries]", shown, len(entries))
	}
	return Result{Success: true, Output: validUTF8(out), Truncated: w.truncated}
}

func orDot(path string) string {
	if path == "" {
		return "."
	}
	return path
}

// readDir lists a workspace directory, sorted by name. The directory is
// opened through the workspace root and read from that descriptor.
func (t *listDirTool) readDir(path string) ([]fs.DirEntry, error) {
	root, name, err := t.ws.locate(path)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	// O_DIRECTORY refuses anything else without opening it, so a FIFO
	// cannot block the call.
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ENOTDIR) {
		return nil, fmt.Errorf("%s is not a directory", path)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}
