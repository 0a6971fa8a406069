package session

import (
	"fmt"
	"io"
	"net/url"
	"strings"

	"scv/internal/regfile"
)

// ContextItem is an editor attachment sent with a prompt: a file (or a
// range of it), optionally with the text the editor already has.
type ContextItem struct {
	URI   string  `json:"uri"`
	Range *Range  `json:"range,omitempty"`
	Text  *string `json:"text,omitempty"`
}

// Range is an LSP range: zero-based lines, end exclusive of its character.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Position is an LSP position.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// resolved is a prompt's attachments: the text the model reads before the
// prompt, and what the events say about them.
type resolved struct {
	text string
	refs []ContextRef
}

func (r resolved) bytes() int { return len(r.text) }

// resolveContext renders the attachments as the text the model reads
// before the prompt. A file is read only inside the workspace.
func (s *Session) resolveContext(items []ContextItem) (resolved, error) {
	var b strings.Builder
	var refs []ContextRef
	for i, item := range items {
		path, err := s.contextPath(item.URI)
		if err != nil {
			return resolved{}, errorf(CodeInvalidParams, "context[%d].uri: %v", i, err)
		}
		refs = append(refs, ContextRef{URI: item.URI, Range: item.Range})
		text := ""
		if item.Text != nil {
			text = *item.Text
		} else {
			data, err := readCapped(path, s.cfg.Tools.MaxReadBytes)
			if err != nil {
				return resolved{}, errorf(CodeInvalidParams, "context[%d].uri: %v", i, err)
			}
			text = string(data)
			if item.Range != nil {
				text = sliceRange(text, *item.Range)
			}
		}
		if len(text) > s.cfg.Tools.MaxReadBytes {
			text = text[:s.cfg.Tools.MaxReadBytes] + "\n[attachment truncated at tools.max_read_bytes]"
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(path, s.cwd), "/")
		where := rel
		if item.Range != nil {
			where = fmt.Sprintf("%s lines %d-%d", rel, item.Range.Start.Line+1, item.Range.End.Line+1)
		}
		fmt.Fprintf(&b, "<attachment path=%q>\n%s\n</attachment>\n\n", where, validUTF8(text))
	}
	return resolved{text: b.String(), refs: refs}, nil
}

func (s *Session) contextPath(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return "", fmt.Errorf("%q is not a file:// URI", uri)
	}
	return s.workspace.Resolve(u.Path)
}

// readCapped reads a regular file only: a FIFO or device named by an
// attachment fails at once rather than hold turn/start.
func readCapped(path string, max int) ([]byte, error) {
	f, _, err := regfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, int64(max)+1))
}

// sliceRange cuts an LSP range out of text (lines are zero-based).
func sliceRange(text string, r Range) string {
	lines := strings.SplitAfter(text, "\n")
	if r.Start.Line >= len(lines) || r.Start.Line < 0 {
		return ""
	}
	end := r.End.Line
	if end >= len(lines) {
		end = len(lines) - 1
	}
	if end < r.Start.Line {
		end = r.Start.Line
	}
	return strings.Join(lines[r.Start.Line:end+1], "")
}
