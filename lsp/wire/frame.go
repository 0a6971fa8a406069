// Package wire reads and writes LSP base-protocol frames
// (Content-Length headers followed by a JSON body) with our own size limits.
package wire

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// MaxHeaderBytes bounds one header block; LSP headers are tiny, so anything
// larger is not LSP framing.
const MaxHeaderBytes = 4096

// ErrBadFraming means the header block is not LSP framing. The stream cannot
// be resynchronised after it, so the connection must be closed.
var ErrBadFraming = errors.New("invalid LSP framing")

// HeadBytes is how much of a too-large body a Reader keeps (in
// TooLargeError.Head), so that a relay can still tell which request the
// frame answered.
const HeadBytes = 4096

// TooLargeError reports a frame whose body was skipped, unread but for its
// first HeadBytes, because its Content-Length exceeded the limit. The stream
// stays usable.
type TooLargeError struct {
	Length int64
	Limit  int
	Head   []byte // the body's first min(Length, HeadBytes) bytes
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("frame of %d bytes exceeds the limit of %d bytes", e.Length, e.Limit)
}

// Reader reads frames from a byte stream.
type Reader struct {
	r     *bufio.Reader
	limit int
	buf   []byte // Next's body buffer, reused
}

// NewReader returns a Reader that refuses bodies larger than limit bytes.
func NewReader(r io.Reader, limit int) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 64*1024), limit: limit}
}

// ReadFrame returns the next body. The returned slice is freshly allocated
// and owned by the caller. Errors: io.EOF at a clean end between frames,
// *TooLargeError (recoverable), ErrBadFraming or an I/O error (fatal).
func (r *Reader) ReadFrame() ([]byte, error) {
	return r.read(nil)
}

// Next is ReadFrame for relays that copy each frame on: the body it
// returns is only valid until the next call, which saves an allocation
// per frame.
func (r *Reader) Next() ([]byte, error) {
	body, err := r.read(r.buf)
	if err == nil && cap(body) <= reuseLimit {
		r.buf = body[:0]
	}
	return body, err
}

// reuseLimit keeps Next from holding on to the buffer of a rare huge frame.
const reuseLimit = 1 << 20

func (r *Reader) read(buf []byte) ([]byte, error) {
	length, err := r.readHeader()
	if err != nil {
		return nil, err
	}
	if length > int64(r.limit) {
		head := make([]byte, min(length, HeadBytes))
		if _, err := io.ReadFull(r.r, head); err != nil {
			return nil, unexpected(err)
		}
		if _, err := io.CopyN(io.Discard, r.r, length-int64(len(head))); err != nil {
			return nil, unexpected(err)
		}
		return nil, &TooLargeError{Length: length, Limit: r.limit, Head: head}
	}
	if int64(cap(buf)) < length {
		buf = make([]byte, length)
	}
	body := buf[:length]
	if _, err := io.ReadFull(r.r, body); err != nil {
		return nil, unexpected(err)
	}
	return body, nil
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

func (r *Reader) readHeader() (int64, error) {
	length := int64(-1)
	total := 0
	for first := true; ; first = false {
		line, err := r.r.ReadSlice('\n')
		total += len(line)
		if err != nil {
			if first && err == io.EOF && len(line) == 0 {
				return 0, io.EOF
			}
			if err == bufio.ErrBufferFull || err == io.EOF {
				return 0, ErrBadFraming
			}
			return 0, err
		}
		if total > MaxHeaderBytes {
			return 0, ErrBadFraming
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			if length < 0 {
				return 0, ErrBadFraming
			}
			return length, nil
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return 0, ErrBadFraming
		}
		if bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Length")) {
			n, err := strconv.ParseInt(string(bytes.TrimSpace(value)), 10, 64)
			// Two different lengths make the frame's end ambiguous: a relay
			// and the server behind it could split the stream differently.
			if err != nil || n < 0 || (length >= 0 && n != length) {
				return 0, ErrBadFraming
			}
			length = n
		}
	}
}

// AppendFrame appends the header and body of one frame to dst.
func AppendFrame(dst, body []byte) []byte {
	dst = append(dst, "Content-Length: "...)
	dst = strconv.AppendInt(dst, int64(len(body)), 10)
	dst = append(dst, "\r\n\r\n"...)
	return append(dst, body...)
}
