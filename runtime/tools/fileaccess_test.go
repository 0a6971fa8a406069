package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeFiles is a client holding unsaved buffers.
type fakeFiles struct {
	buffers map[string]string // absolute path → text
	reads   []string
	writes  map[string]string
}

func (f *fakeFiles) ReadText(_ context.Context, abs string, line, limit int) (string, error) {
	f.reads = append(f.reads, abs)
	text, ok := f.buffers[abs]
	if !ok {
		return "", errors.New("no such buffer")
	}
	lines := strings.SplitAfter(text, "\n")
	if line > 1 {
		lines = lines[min(line-1, len(lines)):]
	}
	if limit > 0 && limit < len(lines) {
		lines = lines[:limit]
	}
	return strings.Join(lines, ""), nil
}

func (f *fakeFiles) WriteText(_ context.Context, abs, content string) error {
	if f.writes == nil {
		f.writes = map[string]string{}
	}
	f.writes[abs] = content
	return nil
}

func TestFileAccessReadsAndWritesThroughTheClient(t *testing.T) {
	ws := newTestWorkspace(t)
	writeFiles(t, ws.Root(), map[string]string{"a.txt": "disk 1\ndisk 2\n"})
	abs := filepath.Join(ws.Root(), "a.txt")
	fa := &fakeFiles{buffers: map[string]string{abs: "buf 1\nbuf 2\nbuf 3\n"}}
	ctx := WithFileAccess(context.Background(), fa)

	res := toolNamed(t, ws, testLimits(), "read_file").Run(ctx, argsJSON(t, map[string]any{"path": "a.txt", "offset": 2, "limit": 1}))
	if !res.Success || !strings.Contains(res.Output, "buf 2") || strings.Contains(res.Output, "disk") || !strings.Contains(res.Output, "continue with offset=3") {
		t.Fatalf("read_file = %+v, want the buffer's line 2 and a note that more follow", res)
	}

	res = toolNamed(t, ws, testLimits(), "edit_file").Run(ctx, argsJSON(t, map[string]any{"path": "a.txt", "old": "buf 3", "new": "edited"}))
	if !res.Success || fa.writes[abs] != "buf 1\nbuf 2\nedited\n" {
		t.Fatalf("edit_file = %+v, client got %q; want the buffer edited and written to the client", res, fa.writes[abs])
	}
	if disk, _ := os.ReadFile(abs); string(disk) != "disk 1\ndisk 2\n" {
		t.Fatalf("disk changed to %q", disk)
	}

	fa.reads = nil
	for name, args := range map[string]map[string]any{"read_file": {"path": "../outside.txt"}, "write_file": {"path": "../outside.txt", "content": "x"}} {
		res = toolNamed(t, ws, testLimits(), name).Run(ctx, argsJSON(t, args))
		if res.Success || !strings.Contains(res.Output, "outside the workspace") {
			t.Fatalf("%s outside = %+v, want refused", name, res)
		}
	}
	if len(fa.reads) != 0 || len(fa.writes) != 1 {
		t.Fatalf("the client was called for a path outside the workspace: reads %v writes %v", fa.reads, fa.writes)
	}
}

// unsupportedFiles is a client that offers neither method.
type unsupportedFiles struct{}

func (unsupportedFiles) ReadText(context.Context, string, int, int) (string, error) {
	return "", errors.ErrUnsupported
}
func (unsupportedFiles) WriteText(context.Context, string, string) error {
	return errors.ErrUnsupported
}

func TestFileAccessUnsupportedFallsBackToDisk(t *testing.T) {
	ws := newTestWorkspace(t)
	writeFiles(t, ws.Root(), map[string]string{"a.txt": "disk\n"})
	ctx := WithFileAccess(context.Background(), unsupportedFiles{})
	res := toolNamed(t, ws, testLimits(), "edit_file").Run(ctx, argsJSON(t, map[string]any{"path": "a.txt", "old": "disk", "new": "new"}))
	if disk, _ := os.ReadFile(filepath.Join(ws.Root(), "a.txt")); !res.Success || string(disk) != "new\n" {
		t.Fatalf("edit_file = %+v, disk %q", res, disk)
	}
}
