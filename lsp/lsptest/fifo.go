package lsptest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Fifo is a named pipe in the workspace that a shell command run by the
// agent writes to, so a test can wait for that command to reach a point.
type Fifo struct {
	Path string
	f    *os.File
}

// MakeFifo creates a named pipe at rel under the workspace. It is opened
// for reading and writing so reads block until data comes (never EOF) and
// a writer's open never blocks; it is closed when the test ends.
func (e *Env) MakeFifo(rel string) *Fifo {
	e.T.Helper()
	path := filepath.Join(e.Work, rel)
	if err := unix.Mkfifo(path, 0o600); err != nil {
		e.T.Fatalf("mkfifo %s: %v", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		e.T.Fatalf("open %s: %v", path, err)
	}
	e.T.Cleanup(func() { f.Close() })
	return &Fifo{Path: path, f: f}
}

// ReadLine waits up to timeout for one line and returns it without the newline.
func (p *Fifo) ReadLine(timeout time.Duration) (string, error) {
	if err := p.f.SetReadDeadline(time.Now().Add(timeout)); err != nil {
		return "", fmt.Errorf("fifo %s: %w", p.Path, err)
	}
	var b strings.Builder
	buf := make([]byte, 1)
	for {
		if _, err := p.f.Read(buf); err != nil {
			return b.String(), fmt.Errorf("read fifo %s: %w", p.Path, err)
		}
		if buf[0] == '\n' {
			return b.String(), nil
		}
		b.WriteByte(buf[0])
	}
}
