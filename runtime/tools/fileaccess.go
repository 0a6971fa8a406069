package tools

import (
	"context"
	"errors"
)

// FileAccess reads and writes text files for the file tools instead of the
// disk, for a front door whose client holds the files (an editor with
// unsaved buffers, and its own review and undo for writes). Paths are
// absolute and already confined to the workspace; approvals were asked
// before WriteText is called. A method that answers errors.ErrUnsupported
// sends the tool to the disk, as if no FileAccess were given.
type FileAccess interface {
	// ReadText returns the file's text from line (1-based; 0: the first)
	// for at most limit lines (0: to the end).
	ReadText(ctx context.Context, absPath string, line, limit int) (string, error)
	// WriteText replaces the file's whole content, creating it if needed.
	WriteText(ctx context.Context, absPath, content string) error
}

type fileAccessKey struct{}

// WithFileAccess returns ctx carrying fa for the tools run under it; the
// runtime stays unaware of where fa sends the files.
func WithFileAccess(ctx context.Context, fa FileAccess) context.Context {
	if fa == nil {
		return ctx
	}
	return context.WithValue(ctx, fileAccessKey{}, fa)
}

func fileAccessFrom(ctx context.Context) FileAccess {
	fa, _ := ctx.Value(fileAccessKey{}).(FileAccess)
	return fa
}

// unsupported reports an error that means "use the disk".
func unsupported(err error) bool { return errors.Is(err, errors.ErrUnsupported) }

// ClientFiles is a FileAccess served by a front door's requests to its
// client: Read or Write nil means the client does not offer it, and the
// tool uses the disk. line and limit are nil when the tool wants the
// whole file, as the wires' optional members are.
type ClientFiles struct {
	Read  func(ctx context.Context, absPath string, line, limit *int) (string, error)
	Write func(ctx context.Context, absPath, content string) error
}

func (c ClientFiles) ReadText(ctx context.Context, absPath string, line, limit int) (string, error) {
	if c.Read == nil {
		return "", errors.ErrUnsupported
	}
	var from, count *int
	if line > 1 {
		from = &line
	}
	if limit > 0 {
		count = &limit
	}
	return c.Read(ctx, absPath, from, count)
}

func (c ClientFiles) WriteText(ctx context.Context, absPath, content string) error {
	if c.Write == nil {
		return errors.ErrUnsupported
	}
	return c.Write(ctx, absPath, content)
}
