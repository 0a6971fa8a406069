package mcp

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// DefaultMaxLogBytes bounds one server's stderr log: past it the file is
// renamed to NAME.log.1 (replacing the previous one) and started afresh,
// so a server's logs never take more than twice this.
const DefaultMaxLogBytes = 1 << 20

// LogPath is where a server's stderr goes: <logDir>/mcp-NAME.log.
func LogPath(logDir, server string) string {
	return filepath.Join(logDir, "mcp-"+server+".log")
}

// rotatingLog is an append-only file that rotates at max bytes.
type rotatingLog struct {
	mu   sync.Mutex
	path string
	max  int64
	f    *os.File
	size int64
}

func openLog(path string, max int64) (*rotatingLog, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create log directory: %w", err)
	}
	l := &rotatingLog{path: path, max: max}
	if err := l.open(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *rotatingLog) open() error {
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open log: %w", err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("open log: %w", err)
	}
	l.f, l.size = f, info.Size()
	return nil
}

// Write appends p, rotating first when p would take the file past max. A
// single write larger than max keeps only its tail.
func (l *rotatingLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(p)
	if int64(len(p)) > l.max {
		p = p[int64(len(p))-l.max:]
	}
	if l.f == nil {
		return n, nil // closed: a late write is dropped, not an error to the copier
	}
	if l.size+int64(len(p)) > l.max {
		l.f.Close()
		l.f = nil
		_ = os.Rename(l.path, l.path+".1")
		if err := l.open(); err != nil {
			return n, err
		}
	}
	w, err := l.f.Write(p)
	l.size += int64(w)
	if err != nil {
		return n, err
	}
	return n, nil
}

func (l *rotatingLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
