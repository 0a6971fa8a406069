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
//
// A failed write (a full disk) loses nothing and sticks to nothing: the
// file is cut back to its last synced length and every record not synced
// stays buffered, so the next Sync writes them all again, and succeeds
// once there is room.
type Log struct {
	mu      sync.Mutex
	f       *os.File
	s       *Store
	name    string
	header  Header
	lastSeq uint64
	// buf holds every record appended since the last successful sync,
	// whole lines. Its first written bytes may be in the file already
	// (a flush), after synced.
	buf     bytes.Buffer
	written int
	// synced is the file's length at the last successful sync (or at
	// Create or Load): what a failed write cuts the file back to.
	synced int64
	// cut: a failed write could not cut the file back; the next write
	// cuts it first.
	cut    bool
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

// Size is the length the file has once every record appended is written.
func (l *Log) Size() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.synced + int64(l.buf.Len())
}

// Append adds rec at the end of the session. rec.Seq must be greater than
// LastSeq and at most MaxSeq. The record is buffered: see the Log's
// durability note. A write that fails while it flushes keeps the record
// buffered and is not an error; Append fails (and keeps nothing of rec)
// only when rec is invalid, would make the file larger than the store's
// MaxLogBytes (a *TooLargeError), or would leave more than
// maxUnsyncedBytes unsynced and the sync that makes room fails.
func (l *Log) Append(rec Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	start, prev, err := l.add(rec)
	if err != nil {
		return err
	}
	if l.buf.Len() > maxUnsyncedBytes {
		return l.syncOrDrop(start, prev)
	}
	if l.buf.Len()-l.written >= flushBytes {
		_ = l.flush() // kept buffered: the next Sync writes it again
	}
	return nil
}

// Commit appends rec and syncs, for a change that must be durable before
// it is answered. When it fails, rec is taken back as if never appended
// (the records buffered before it stay buffered), so the caller can
// refuse the change.
func (l *Log) Commit(rec Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	start, prev, err := l.add(rec)
	if err != nil {
		return err
	}
	return l.syncOrDrop(start, prev)
}

// syncOrDrop syncs, and when that fails takes back the record add placed
// at start (see drop).
func (l *Log) syncOrDrop(start int, prev uint64) error {
	if err := l.sync(); err != nil {
		l.drop(start, prev)
		return err
	}
	return nil
}

// Sync writes the buffered records and makes them durable (fsync). When it
// returns nil, every record appended before it survives any crash. When
// it fails, they stay buffered for the next Sync.
func (l *Log) Sync() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.usable(); err != nil {
		return err
	}
	return l.sync()
}

// Close syncs the Log like Sync and releases the writer lock. It is safe
// to call more than once; later calls return nil. Records it could not
// write are lost, and the error says so.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	err := l.sync()
	l.closed = true
	// Closing the descriptor drops the flock.
	return errors.Join(err, l.f.Close())
}

// add encodes rec at the end of the buffer and returns where it starts
// and the lastSeq before it, which drop needs to take it back.
func (l *Log) add(rec Record) (start int, prev uint64, err error) {
	if err := l.usable(); err != nil {
		return 0, 0, err
	}
	if rec.Seq <= l.lastSeq {
		return 0, 0, fmt.Errorf("session %s: record seq %d does not follow %d", l.header.ID, rec.Seq, l.lastSeq)
	}
	start = l.buf.Len()
	if err := appendRecord(&l.buf, rec); err != nil {
		return 0, 0, fmt.Errorf("session %s: %w", l.header.ID, err)
	}
	if size := l.synced + int64(l.buf.Len()); size > l.s.maxLogBytes {
		l.buf.Truncate(start)
		return 0, 0, &TooLargeError{ID: l.header.ID, Size: size, Limit: l.s.maxLogBytes}
	}
	prev, l.lastSeq = l.lastSeq, rec.Seq
	return start, prev, nil
}

// drop takes back the record added at start with lastSeq prev before
// it: it was not written, since a failed write leaves the file at synced.
func (l *Log) drop(start int, prev uint64) {
	l.buf.Truncate(start)
	l.written = min(l.written, start)
	l.lastSeq = prev
}

func (l *Log) sync() error {
	if err := l.flush(); err != nil {
		return err
	}
	if err := l.s.fsync(l.f); err != nil {
		return l.failed("sync", err)
	}
	l.synced += int64(l.buf.Len())
	l.written = 0
	if l.buf.Cap() > 4*flushBytes {
		l.buf = bytes.Buffer{} // let one huge record's buffer go
	} else {
		l.buf.Reset()
	}
	return nil
}

// flush writes what the file lacks of the buffer, which holds whole
// records only, in one write.
func (l *Log) flush() error {
	if l.cut {
		if err := l.f.Truncate(l.synced); err != nil {
			return fmt.Errorf("session %s: cut %s back to its last synced length: %w: %w", l.header.ID, l.Path(), ErrWrite, withoutPath(err))
		}
		l.cut = false
	}
	if l.written == l.buf.Len() {
		return nil
	}
	n, err := l.f.Write(l.buf.Bytes()[l.written:])
	if err != nil {
		return l.failed("write", err)
	}
	l.written += n
	return nil
}

// failed cuts the file back to its last synced length, so that it never
// ends in half a record, and marks the whole buffer unwritten: after a
// failed fsync the kernel may have dropped pages it reported written, so
// they are written again rather than trusted.
func (l *Log) failed(op string, err error) error {
	l.written = 0
	if terr := l.f.Truncate(l.synced); terr != nil {
		l.cut = true
	}
	return fmt.Errorf("session %s: %s %s: %w: %w", l.header.ID, op, l.Path(), ErrWrite, withoutPath(err))
}

// withoutPath is err without the path an *os.File operation names: a
// log's file was opened under the temporary name Create linked from, so
// that path names nothing (the message names l.Path()).
func withoutPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// usable refuses a Log that was closed.
func (l *Log) usable() error {
	if l.closed {
		return fmt.Errorf("session %s: %w", l.header.ID, ErrClosed)
	}
	return nil
}
