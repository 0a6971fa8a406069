package lsptest

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"sync"

	"scv/lsp/client"
)

// Response is a response the editor received, whoever asked for it: the
// client only hands answers to pending calls to their callers, so answers
// to raw frames (and errors with id null) are only visible here.
type Response struct {
	Index  int             // arrival order among every frame, shared with Note.Index
	ID     json.RawMessage // as sent; "null" for errors to unidentifiable requests
	Result json.RawMessage
	Error  *client.Error
}

// IDIs reports whether the response's id is the JSON value id.
func (r Response) IDIs(id string) bool {
	return string(bytes.TrimSpace(r.ID)) == id
}

// tap sits between the connection and the client and parses a copy of the
// byte stream into frames as the client's read goroutine pulls it, so
// every frame is recorded before the client acts on it: when a Call
// returns, every notification that preceded its reply has been recorded.
type tap struct {
	io.ReadWriteCloser
	onFrame func(body []byte)
	buf     []byte
	broken  bool // the stream is not LSP framing: stop parsing

	gateMu sync.Mutex
	gate   chan struct{} // non-nil while reading is paused; closed to resume
}

// pause stops reading from the server until resume, as an editor that
// stopped reading its server's output would.
func (t *tap) pause() {
	t.gateMu.Lock()
	defer t.gateMu.Unlock()
	if t.gate == nil {
		t.gate = make(chan struct{})
	}
}

func (t *tap) resume() {
	t.gateMu.Lock()
	defer t.gateMu.Unlock()
	if t.gate != nil {
		close(t.gate)
		t.gate = nil
	}
}

func (t *tap) Read(p []byte) (int, error) {
	t.gateMu.Lock()
	gate := t.gate
	t.gateMu.Unlock()
	if gate != nil {
		<-gate
	}
	n, err := t.ReadWriteCloser.Read(p)
	if n > 0 && !t.broken {
		t.buf = append(t.buf, p[:n]...)
		t.parse()
	}
	return n, err
}

func (t *tap) parse() {
	for {
		end := bytes.Index(t.buf, []byte("\r\n\r\n"))
		if end < 0 {
			return
		}
		length := -1
		for _, line := range bytes.Split(t.buf[:end], []byte("\r\n")) {
			name, value, ok := bytes.Cut(line, []byte(":"))
			if ok && bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Length")) {
				if v, err := strconv.Atoi(string(bytes.TrimSpace(value))); err == nil {
					length = v
				}
			}
		}
		if length < 0 {
			t.broken = true
			t.buf = nil
			return
		}
		start := end + 4
		if len(t.buf) < start+length {
			return
		}
		body := append([]byte(nil), t.buf[start:start+length]...)
		t.buf = append(t.buf[:0], t.buf[start+length:]...)
		t.onFrame(body)
	}
}

// Err returns the response's error, or nil for a success.
func (r Response) Err() error {
	if r.Error == nil {
		return nil
	}
	return r.Error
}
