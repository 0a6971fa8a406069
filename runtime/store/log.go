package store

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// Log is an open session file: the writer of one session. It holds the
// session's writer lock until Close. Its methods are safe for concurrent
// use.
//
// Durability: Append only buffers; a record reaches the file when the
// buffer passes flushBytes, at Sync, or at Close, and it is durable (it
// survives a crash of the process and of the machine) only once Sync or
// Close has returned nil. Records are written to the file whole, so a
// killed process leaves complete lines; only a machine crash can leave a
// torn last line, which Load repairs.
type Log struct {
	mu      sync.Mutex
	f       *os.File
	s       *Store
	name    string
	header  Header
	lastSeq uint64
	buf     bytes.Buffer
	// size is the file's length up to the last complete write; a failed
	// write is cut back to it so the file never ends in half a record.
	size int64
	// err is the first write error; the Log refuses writes after it.
	err    error
	closed bool
}

// ID is the session's id.
func (l *Log) ID() string { return l.header.ID }

// Header is the session's header.
func (l *Log) Header() Header { return l.header }

// Path is the session file's path.
func (l *Log) Path() string { return filepath.Join(l.s.dir, l.name) }

// LastSeq is the seq of the last record appended or loaded (0 for none).
func (l *Log) LastSeq() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lastSeq
}

// Append adds rec at the end of the session. rec.Seq must be greater than
// LastSeq. The record is buffered: see the Log's durability note.
func (l *Log) Append(rec Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.usable(); err != nil {
		return err
	}
	if rec.Seq <= l.lastSeq {
		return fmt.Errorf("session %s: record seq %d does not follow %d", l.header.ID, rec.Seq, l.lastSeq)
	}
	if err := appendRecord(&l.buf, rec); err != nil {
		return fmt.Errorf("session %s: %w", l.header.ID, err)
	}
	l.lastSeq = rec.Seq
	if l.buf.Len() >= flushBytes {
		return l.flush()
	}
	return nil
}

// Sync writes the buffered records and makes them durable (fsync). When it
// returns nil, every record appended before it survives any crash.
func (l *Log) Sync() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.usable(); err != nil {
		return err
	}
	return l.sync()
}

// Close syncs the Log like Sync and releases the writer lock. It is safe
// to call more than once; later calls return nil.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	var err error
	if l.err == nil {
		err = l.sync()
	}
	l.closed = true
	// Closing the descriptor drops the flock.
	return errors.Join(err, l.f.Close())
}

func (l *Log) usable() error {
	if l.closed {
		return fmt.Errorf("session %s: %w", l.header.ID, ErrClosed)
	}
	return l.err
}

func (l *Log) sync() error {
	if err := l.flush(); err != nil {
		return err
	}
	if err := l.s.fsync(l.f); err != nil {
		l.err = fmt.Errorf("session %s: sync %s: %w", l.header.ID, l.Path(), err)
		return l.err
	}
	return nil
}

// flush writes the buffer, which holds whole records only, in one write.
func (l *Log) flush() error {
	if l.buf.Len() == 0 {
		return nil
	}
	n, err := l.f.Write(l.buf.Bytes())
	if err != nil {
		// A short write (a full disk) would leave half a record that the
		// next append glues onto: cut it off and stop writing.
		if n > 0 {
			l.f.Truncate(l.size)
		}
		l.err = fmt.Errorf("session %s: write %s: %w", l.header.ID, l.Path(), err)
		return l.err
	}
	l.size += int64(n)
	if l.buf.Cap() > 4*flushBytes {
		l.buf = bytes.Buffer{} // let one huge record's buffer go
	} else {
		l.buf.Reset()
	}
	return nil
}
