package provider

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"
)

// errMissingDone and errLineTooLong are produced while reading a response
// body; classify turns them into *Error values.
var (
	errMissingDone = errors.New("stream ended without data: [DONE]")
	errLineTooLong = errors.New("stream line exceeds the size limit")
)

// attemptKey carries an *attemptState from Stream to the transport through
// the request context, because go-openai offers no other hook between the
// HTTP response and its stream reader.
type attemptKey struct{}

// attemptState is what the transport learns about one HTTP attempt. It is
// written by the goroutine that reads the stream (go-openai reads the body
// on the caller's goroutine), so it needs no lock.
type attemptState struct {
	sawDone    bool
	retryAfter time.Duration
	// touch is called after every successful body read; it re-arms the
	// idle timer.
	touch func()
}

// headerTransport adds the configured headers to every request and wraps
// response bodies so the stream terminator and read activity are observed.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for name, value := range t.headers {
			req.Header.Set(name, value)
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	st, _ := req.Context().Value(attemptKey{}).(*attemptState)
	if st == nil {
		return resp, nil
	}
	if st.touch != nil {
		st.touch()
	}
	if resp.StatusCode >= 300 {
		st.retryAfter = parseRetryAfter(resp.Header.Get("Retry-After"))
		// Error bodies are read whole by go-openai; cap them.
		resp.Body = &limitedBody{r: io.LimitReader(resp.Body, maxErrorBodyBytes), c: resp.Body}
		return resp, nil
	}
	resp.Body = &sseBody{body: resp.Body, st: st}
	return resp, nil
}

// parseRetryAfter understands the delta-seconds form only; HTTP dates are
// rare from model endpoints and fall back to normal backoff.
func parseRetryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	secs, err := strconv.Atoi(v)
	if err != nil || secs < 0 {
		return 0
	}
	return time.Duration(secs) * time.Second
}

type limitedBody struct {
	r io.Reader
	c io.Closer
}

func (b *limitedBody) Read(p []byte) (int, error) { return b.r.Read(p) }
func (b *limitedBody) Close() error               { return b.c.Close() }

// sseBody watches the event stream line by line as it passes through. It
// records whether a "data: [DONE]" line was seen — go-openai reports io.EOF
// both after [DONE] and when the body simply ends, so this is the only way
// to tell a complete stream from a truncated one — and it fails lines longer
// than maxSSELineBytes, which bufio.Reader.ReadBytes would otherwise buffer
// without bound.
type sseBody struct {
	body    io.ReadCloser
	st      *attemptState
	lineLen int
	// head keeps the first bytes of the current line, enough to recognise
	// the terminator.
	head    [32]byte
	headLen int
}

func (b *sseBody) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	if n > 0 {
		if b.st.touch != nil {
			b.st.touch()
		}
		if scanErr := b.scan(p[:n]); scanErr != nil {
			return n, scanErr
		}
	}
	if err == io.EOF && b.headLen > 0 {
		// A final line without its newline still counts.
		b.endLine()
	}
	return n, err
}

func (b *sseBody) scan(chunk []byte) error {
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		part := chunk
		if i >= 0 {
			part = chunk[:i]
		}
		b.lineLen += len(part)
		if b.lineLen > maxSSELineBytes {
			return errLineTooLong
		}
		if b.headLen < len(b.head) {
			b.headLen += copy(b.head[b.headLen:], part)
		}
		if i < 0 {
			return nil
		}
		b.endLine()
		chunk = chunk[i+1:]
	}
	return nil
}

func (b *sseBody) endLine() {
	if b.lineLen < len(b.head) && isDoneLine(b.head[:b.headLen]) {
		b.st.sawDone = true
	}
	b.lineLen = 0
	b.headLen = 0
}

func isDoneLine(line []byte) bool {
	line = bytes.TrimSpace(line)
	rest, ok := bytes.CutPrefix(line, []byte("data:"))
	return ok && string(bytes.TrimSpace(rest)) == "[DONE]"
}

func (b *sseBody) Close() error { return b.body.Close() }

// withAttempt attaches st to ctx for the transport.
func withAttempt(ctx context.Context, st *attemptState) context.Context {
	return context.WithValue(ctx, attemptKey{}, st)
}
