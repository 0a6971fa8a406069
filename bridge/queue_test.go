package bridge

import (
	"errors"
	"io"
	"strconv"
	"testing"

	"scv/lsp/wire"
)

func TestEditorQueueKeepsOrderUnderBackpressure(t *testing.T) {
	q := newEditorQueue(64) // a few frames at most
	r, w := io.Pipe()
	writerDone := make(chan error, 1)
	go func() { writerDone <- q.run(w); w.Close() }()
	const n = 2000
	putDone := make(chan error, 1)
	go func() {
		for i := range n {
			if err := q.put([]byte(strconv.Itoa(i))); err != nil {
				putDone <- err
				return
			}
		}
		q.close()
		putDone <- nil
	}()
	fr := wire.NewReader(r, 1<<10)
	for i := range n {
		body, err := fr.ReadFrame()
		if err != nil || string(body) != strconv.Itoa(i) {
			t.Fatalf("frame %d = %q, %v", i, body, err)
		}
	}
	if _, err := fr.ReadFrame(); err != io.EOF {
		t.Fatalf("after the last frame: %v", err)
	}
	if err := <-putDone; err != nil {
		t.Fatal(err)
	}
	if err := <-writerDone; err != nil {
		t.Fatal(err)
	}
	if err := q.put([]byte("late")); !errors.Is(err, errQueueClosed) {
		t.Fatalf("put after close = %v", err)
	}
}

func TestEditorQueueReportsWriteFailure(t *testing.T) {
	q := newEditorQueue(1 << 10)
	r, w := io.Pipe()
	r.Close()
	writerDone := make(chan error, 1)
	go func() { writerDone <- q.run(w) }()
	if err := q.put([]byte("x")); err != nil {
		t.Fatal(err) // queued before the writer noticed
	}
	var werr *editorWriteError
	if err := <-writerDone; !errors.As(err, &werr) {
		t.Fatalf("writer = %v", err)
	}
	if err := q.put([]byte("y")); !errors.As(err, &werr) {
		t.Fatalf("put after a failed write = %v", err)
	}
}
