package acp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
)

// lineReader reads newline-delimited messages. A line longer than max is
// skipped up to its newline without being buffered whole.
type lineReader struct {
	r   *bufio.Reader
	max int
}

// errLineTooLong reports a skipped line.
type errLineTooLong struct{ size, limit int }

func (e *errLineTooLong) Error() string {
	return fmt.Sprintf("a message of more than %d bytes exceeds the limit of %d bytes (protocol.max_client_frame_bytes)", e.size, e.limit)
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next non-blank line without its newline.
func (l *lineReader) next() ([]byte, error) {
	for {
		var line []byte
		for {
			chunk, err := l.r.ReadSlice('\n')
			if len(line)+len(chunk) > l.max+1 { // +1: the newline
				skipped := len(line) + len(chunk)
				for errors.Is(err, bufio.ErrBufferFull) {
					chunk, err = l.r.ReadSlice('\n')
					skipped += len(chunk)
				}
				if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
					return nil, err
				}
				return nil, &errLineTooLong{size: skipped - 1, limit: l.max}
			}
			line = append(line, chunk...)
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if err != nil {
				if errors.Is(err, io.EOF) && len(bytes.TrimSpace(line)) > 0 {
					return line, nil // a last message without its newline
				}
				return nil, err
			}
			break
		}
		if line = bytes.TrimSpace(line); len(line) > 0 {
			return line, nil
		}
	}
}

// coalesceBytes is how much the pump gathers before one write: a write
// per delta costs a system call each and halves streaming throughput.
const coalesceBytes = 64 << 10

// lineWriter writes whole messages, one per line, one at a time. Between
// gather and flush (the pump working through a batch of events) messages
// are gathered and written coalesceBytes at a time; at other times, and
// for replies written while nothing is gathered, each goes out at once.
type lineWriter struct {
	mu        sync.Mutex
	w         io.Writer
	err       error
	gathering bool
	buf       []byte
}

// write sends msg, which must end with a newline. After a failed write
// every later one fails at once.
func (w *lineWriter) write(msg []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if w.gathering {
		w.buf = append(w.buf, msg...)
		if len(w.buf) >= coalesceBytes {
			w.flushLocked()
		}
		return w.err
	}
	w.writeLocked(msg)
	return w.err
}

func (w *lineWriter) writeLocked(msg []byte) {
	if _, err := w.w.Write(msg); err != nil {
		w.err = fmt.Errorf("write to the ACP client: %w", err)
	}
}

func (w *lineWriter) flushLocked() {
	if len(w.buf) > 0 && w.err == nil {
		w.writeLocked(w.buf)
	}
	w.buf = w.buf[:0]
}

// gather starts gathering messages until flush.
func (w *lineWriter) gather() {
	w.mu.Lock()
	w.gathering = true
	w.mu.Unlock()
}

// flush writes what was gathered and stops gathering.
func (w *lineWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.flushLocked()
	w.gathering = false
}
