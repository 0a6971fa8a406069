package mcp

import (
	"io"
	"mime"
	"net/http"
)

// boundedBodies holds every answer of an HTTP server that is one message
// (an application/json body, or an error's body) to MaxServerMessageBytes,
// as a stdio server's line is: the SDK reads such a body whole. An event
// stream is long-lived and bounded per event instead (the transport's
// MaxEventSize).
type boundedBodies struct{ base http.RoundTripper }

func (t boundedBodies) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); media != "text/event-stream" {
		resp.Body = &limitedBody{body: resp.Body, left: MaxServerMessageBytes}
	}
	return resp, nil
}

// limitedBody fails a read past its bound with errMessageTooLarge, so the
// answer is refused rather than cut to a prefix that may still decode.
type limitedBody struct {
	body io.ReadCloser
	left int
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, errMessageTooLarge
	}
	if len(p) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.body.Read(p)
	b.left -= n
	if b.left < 0 {
		return 0, errMessageTooLarge
	}
	return n, err
}

func (b *limitedBody) Close() error { return b.body.Close() }
