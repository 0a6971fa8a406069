package wire

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// fuzzFrameLimit is small so that the oversized-frame path is explored.
const fuzzFrameLimit = 64

// FuzzFrame feeds arbitrary bytes to the frame reader. Whatever the input,
// it must not panic, must end (every frame consumes input), must never
// return a body over the limit, must agree between ReadFrame and Next, and
// every body it returns must survive AppendFrame and a second read intact.
// The seed corpus is in testdata/fuzz/FuzzFrame.
func FuzzFrame(f *testing.F) {
	f.Add(frames(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		owned := readAll(t, data, (*Reader).ReadFrame)
		reused := readAll(t, data, func(r *Reader) ([]byte, error) {
			body, err := r.Next()
			return bytes.Clone(body), err
		})
		if len(owned) != len(reused) {
			t.Fatalf("ReadFrame read %d frames, Next %d", len(owned), len(reused))
		}
		for i := range owned {
			if !bytes.Equal(owned[i], reused[i]) {
				t.Fatalf("frame %d: ReadFrame %q, Next %q", i, owned[i], reused[i])
			}
			again, err := NewReader(bytes.NewReader(AppendFrame(nil, owned[i])), fuzzFrameLimit).ReadFrame()
			if err != nil || !bytes.Equal(again, owned[i]) {
				t.Fatalf("frame %d %q does not survive a round trip: %q, %v", i, owned[i], again, err)
			}
		}
	})
}

// readAll reads frames until a fatal error, skipping oversized ones, and
// checks the errors are the documented ones.
func readAll(t *testing.T, data []byte, read func(*Reader) ([]byte, error)) [][]byte {
	r := NewReader(bytes.NewReader(data), fuzzFrameLimit)
	var bodies [][]byte
	for frames := 0; ; frames++ {
		if frames > len(data) {
			t.Fatalf("%d frames out of %d bytes: the reader does not advance", frames, len(data))
		}
		body, err := read(r)
		var tooLarge *TooLargeError
		switch {
		case err == nil:
			if len(body) > fuzzFrameLimit {
				t.Fatalf("a body of %d bytes passed the limit of %d", len(body), fuzzFrameLimit)
			}
			bodies = append(bodies, body)
		case errors.As(err, &tooLarge):
			if tooLarge.Length <= int64(fuzzFrameLimit) {
				t.Fatalf("a frame of %d bytes was refused as too large", tooLarge.Length)
			}
		case err == io.EOF, errors.Is(err, ErrBadFraming), errors.Is(err, io.ErrUnexpectedEOF):
			return bodies
		default:
			t.Fatalf("unexpected error: %v", err)
		}
	}
}
