package tools

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Defaults used by Builtin for any Limits field left at zero.
const (
	DefaultMaxReadBytes   = 256 << 10
	DefaultMaxOutputBytes = 64 << 10
	DefaultShellTimeout   = 2 * time.Minute
	DefaultMaxGrepMatches = 200
)

// DefaultLimits are the limits a runtime without configuration uses.
func DefaultLimits() Limits {
	return Limits{
		MaxReadBytes:   DefaultMaxReadBytes,
		MaxOutputBytes: DefaultMaxOutputBytes,
		ShellTimeout:   DefaultShellTimeout,
		MaxGrepMatches: DefaultMaxGrepMatches,
	}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxReadBytes <= 0 {
		l.MaxReadBytes = d.MaxReadBytes
	}
	if l.MaxOutputBytes <= 0 {
		l.MaxOutputBytes = d.MaxOutputBytes
	}
	if l.ShellTimeout <= 0 {
		l.ShellTimeout = d.ShellTimeout
	}
	if l.MaxGrepMatches <= 0 {
		l.MaxGrepMatches = d.MaxGrepMatches
	}
	return l
}

// spec is what every tool shares: its name, description and arguments.
type spec struct {
	name   string
	desc   string
	params params
	risk   Risk
}

func (s spec) Name() string                { return s.name }
func (s spec) Description() string         { return s.desc }
func (s spec) Parameters() json.RawMessage { return s.params.schema() }
func (s spec) Risk() Risk                  { return s.risk }

// workspaceTool is what every builtin tool holds besides its own logic:
// its spec, the workspace it works in and the limits it obeys.
type workspaceTool struct {
	spec
	ws     *Workspace
	limits Limits
}

func bind(ws *Workspace, limits Limits, s spec) workspaceTool {
	return workspaceTool{spec: s, ws: ws, limits: limits}
}

// fail is the Result of a call that could not be carried out.
func (s spec) fail(format string, args ...any) Result {
	return Result{Success: false, Output: validUTF8(s.name + ": " + fmt.Sprintf(format, args...))}
}

// decode parses args, wrapping errors in the tool's name.
func (s spec) decode(args json.RawMessage, dst any) error {
	if err := s.params.decode(args, dst); err != nil {
		return fmt.Errorf("%s: %w", s.name, err)
	}
	return nil
}

// openText opens a regular text file of the workspace for reading.
// Anything else (a directory, a FIFO that would block, a device, a binary
// file) is refused.
func (w *Workspace) openText(path string) (*os.File, error) {
	root, name, err := w.locate(path)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return openText(root, name)
}

// openText opens name under root if it is a regular text file.
func openText(root *os.Root, name string) (*os.File, error) {
	f, _, err := openRegular(root, name)
	if err != nil {
		return nil, err
	}
	if err := sniffFile(f); err != nil {
		f.Close()
		rel := filepath.ToSlash(name)
		if errors.Is(err, errBinary) {
			return nil, fmt.Errorf("%s looks like a binary file; only text files can be read", rel)
		}
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	return f, nil
}

// nextLine reads one line with its newline, keeping at most keep bytes of
// it; long reports that bytes were dropped. At the end of input it returns
// the last partial line (if any) together with io.EOF.
func nextLine(r *bufio.Reader, keep int) (line []byte, long bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		room := keep - len(line)
		if len(chunk) > room {
			long = true
			chunk = chunk[:max(room, 0)]
		}
		line = append(line, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, long, err
		}
	}
}
