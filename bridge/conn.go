package bridge

import (
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"scv/lsp/wire"
)

// firstFrameTooLargeError: the first frame exceeded the limit. The daemon
// answers it and closes the connection, because keeping the skipped body
// would mean buffering it for the replay.
type firstFrameTooLargeError struct {
	length int64 // -1 when the header was not fully read yet
	limit  int
}

func (e *firstFrameTooLargeError) Error() string {
	return fmt.Sprintf("first frame exceeds %d bytes", e.limit)
}

var errRecordFull = errors.New("first frame exceeds the handshake buffer")

// readFirstFrame waits up to timeout for one whole frame and returns every
// byte it read from c, for replaying to the server. It never reads more than
// one maximal header block plus limit bytes.
func readFirstFrame(c net.Conn, timeout time.Duration, limit int) ([]byte, error) {
	if err := c.SetReadDeadline(time.Now().Add(timeout)); err != nil {
		return nil, fmt.Errorf("set the handshake deadline: %w", err)
	}
	rec := &recorder{r: c, room: wire.MaxHeaderBytes + limit}
	_, err := wire.NewReader(rec, limit).ReadFrame()
	var tooLarge *wire.TooLargeError
	switch {
	case err == nil:
	case errors.As(err, &tooLarge):
		return nil, &firstFrameTooLargeError{length: tooLarge.Length, limit: limit}
	case errors.Is(err, errRecordFull):
		return nil, &firstFrameTooLargeError{length: -1, limit: limit}
	case errors.Is(err, io.EOF):
		return nil, errors.New("peer hung up before its first frame")
	case errors.Is(err, wire.ErrBadFraming):
		return nil, fmt.Errorf("first frame: %w", err)
	case isTimeout(err):
		return nil, fmt.Errorf("no first frame within %v", timeout)
	default:
		return nil, fmt.Errorf("read the first frame: %w", err)
	}
	if err := c.SetReadDeadline(time.Time{}); err != nil {
		return nil, fmt.Errorf("clear the handshake deadline: %w", err)
	}
	return rec.buf, nil
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// recorder keeps what it reads, up to room bytes; it shortens reads so the
// frame reader's read-ahead never goes past that.
type recorder struct {
	r    io.Reader
	buf  []byte
	room int
}

func (r *recorder) Read(p []byte) (int, error) {
	if r.room == 0 {
		return 0, errRecordFull
	}
	if len(p) > r.room {
		p = p[:r.room]
	}
	n, err := r.r.Read(p)
	r.buf = append(r.buf, p[:n]...)
	r.room -= n
	return n, err
}

// replayConn hands the server the bytes the handshake already read, then
// the live connection. Embedding keeps CloseRead, deadlines and addresses.
type replayConn struct {
	*net.UnixConn
	pending []byte
}

func (c *replayConn) Read(p []byte) (int, error) {
	if len(c.pending) > 0 {
		n := copy(p, c.pending)
		c.pending = c.pending[n:]
		if len(c.pending) == 0 {
			c.pending = nil // let the first frame's bytes be collected
		}
		return n, nil
	}
	return c.UnixConn.Read(p)
}
