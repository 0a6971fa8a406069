package wire

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"scv/internal/outbudget"
)

func frames(bodies ...string) []byte {
	var out []byte
	for _, b := range bodies {
		out = AppendFrame(out, []byte(b))
	}
	return out
}

func TestReaderSkipsOversizedBodyAndKeepsGoing(t *testing.T) {
	big := strings.Repeat("x", 100)
	r := NewReader(bytes.NewReader(frames(`{"a":1}`, big, `{"b":2}`)), 50)
	got, err := r.ReadFrame()
	if err != nil || string(got) != `{"a":1}` {
		t.Fatalf("first frame = %q, %v", got, err)
	}
	_, err = r.ReadFrame()
	var tooLarge *TooLargeError
	if !errors.As(err, &tooLarge) || tooLarge.Length != 100 || tooLarge.Limit != 50 {
		t.Fatalf("oversized frame error = %v", err)
	}
	got, err = r.ReadFrame()
	if err != nil || string(got) != `{"b":2}` {
		t.Fatalf("frame after the oversized one = %q, %v", got, err)
	}
	if _, err := r.ReadFrame(); err != io.EOF {
		t.Fatalf("end = %v, want io.EOF", err)
	}
}

func TestReaderRejectsBadFraming(t *testing.T) {
	cases := map[string]string{
		"no content length":   "Content-Type: x\r\n\r\n{}",
		"not a header":        "hello world\r\n\r\n",
		"negative length":     "Content-Length: -4\r\n\r\n",
		"garbage length":      "Content-Length: 12abc\r\n\r\n",
		"endless header":      "Content-Length: 2\r\nX: " + strings.Repeat("y", 2*MaxHeaderBytes) + "\r\n\r\n{}",
		"eof inside header":   "Content-Length: 2\r\n",
		"bare json, no head":  `{"jsonrpc":"2.0"}` + "\n",
		"conflicting lengths": "Content-Length: 2\r\nContent-Length: 40\r\n\r\n{}",
	}
	for name, input := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := NewReader(strings.NewReader(input), 1<<20).ReadFrame()
			if !errors.Is(err, ErrBadFraming) {
				t.Fatalf("err = %v, want ErrBadFraming", err)
			}
		})
	}
}

func TestReaderTruncatedBody(t *testing.T) {
	_, err := NewReader(strings.NewReader("Content-Length: 10\r\n\r\n{}"), 100).ReadFrame()
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v, want unexpected EOF", err)
	}
}

func TestReaderAcceptsExactLimitAndExtraHeaders(t *testing.T) {
	body := strings.Repeat("y", 64)
	input := "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length: 64\r\n\r\n" + body
	got, err := NewReader(strings.NewReader(input), 64).ReadFrame()
	if err != nil || string(got) != body {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestOutboundDropsEventsOverBudgetButNeverReplies(t *testing.T) {
	o := NewOutbound(outbudget.NewAccount(nil, 10))
	if !o.Offer(make([]byte, 8)) {
		t.Fatal("first event refused")
	}
	if o.Offer(make([]byte, 8)) {
		t.Fatal("event over the budget admitted")
	}
	if !o.Push(make([]byte, 8)) {
		t.Fatal("reply refused")
	}
	if q := o.Queued(); q != 16 {
		t.Fatalf("queued = %d, want 16", q)
	}
	var out bytes.Buffer
	o.Close()
	if err := o.Run(&out); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 16 || o.Queued() != 0 {
		t.Fatalf("wrote %d bytes, %d still queued", out.Len(), o.Queued())
	}
	if o.Push([]byte("x")) {
		t.Fatal("push after close admitted")
	}
}

func TestOutboundWritesInOrderAcrossChunks(t *testing.T) {
	o := NewOutbound(outbudget.NewAccount(nil, 1<<30))
	var want []byte
	for i := 0; i < 3000; i++ {
		f := AppendFrame(nil, bytes.Repeat([]byte{byte('a' + i%26)}, i%97))
		want = append(want, f...)
		o.Offer(f)
	}
	huge := AppendFrame(nil, bytes.Repeat([]byte("z"), 3*writeChunk))
	want = append(want, huge...)
	o.Push(huge)
	o.Close()
	var out bytes.Buffer
	if err := o.Run(&out); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Fatal("frames were reordered or altered")
	}
}

func TestNextReusesItsBufferAndKeepsFramesApart(t *testing.T) {
	r := NewReader(bytes.NewReader(frames(`{"a":1}`, strings.Repeat("y", 300), `{"b":2}`)), 1000)
	first, err := r.Next()
	if err != nil || string(first) != `{"a":1}` {
		t.Fatalf("first = %q, %v", first, err)
	}
	second, err := r.Next()
	if err != nil || string(second) != strings.Repeat("y", 300) {
		t.Fatalf("second = %q, %v", second, err)
	}
	third, err := r.Next()
	if err != nil || string(third) != `{"b":2}` {
		t.Fatalf("third = %q, %v", third, err)
	}
	if &third[0] != &second[0] {
		t.Fatal("Next allocated a new buffer for a frame that fit the last one")
	}
}

func TestWaitRoomHoldsUntilTheWriterDrains(t *testing.T) {
	o := NewOutbound(outbudget.NewAccount(nil, 10))
	o.Push(make([]byte, 16)) // a reply over the budget
	released := make(chan struct{})
	go func() {
		o.WaitRoom(context.Background())
		close(released)
	}()
	select {
	case <-released:
		t.Fatal("WaitRoom returned with 16 bytes queued and a limit of 10")
	default:
	}
	pr, pw := io.Pipe()
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	runDone := make(chan error, 1)
	go func() { runDone <- o.Run(pw) }()
	<-released // returns only once the writer has written the reply
	if q := o.Queued(); q >= 10 {
		t.Fatalf("released with %d bytes queued", q)
	}
	o.Close()
	if err := <-runDone; err != nil {
		t.Fatal(err)
	}
	pw.Close()
}
