package lsp

import (
	"context"
	"io"
	"net"
	"testing"
	"time"

	"scv/lsp/wire"
)

// A daemon connection that never initializes is closed after the bound,
// whatever else it sends; one that initializes in time stays open.
func TestConnectionWithoutInitializeIsClosed(t *testing.T) {
	srv := NewServer(Options{Mode: ModeDaemon, Home: t.TempDir(), InitializeTimeout: 100 * time.Millisecond})
	serverSide, editor := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.ServeConn(context.Background(), serverSide) }()
	go func() { _, _ = io.Copy(io.Discard, editor) }()
	if _, err := editor.Write(wire.AppendFrame(nil, []byte(`{"jsonrpc":"2.0","id":1,"method":"scv/session/list"}`))); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a connection that never sent initialize stayed open")
	}
	editor.Close()

	serverSide, editor = net.Pipe()
	go func() { done <- srv.ServeConn(context.Background(), serverSide) }()
	r := wire.NewReader(editor, 1<<20)
	if _, err := editor.Write(wire.AppendFrame(nil, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))); err != nil {
		t.Fatal(err)
	}
	if _, err := r.ReadFrame(); err != nil {
		t.Fatal(err)
	}
	// Past the bound the connection still answers.
	deadline := time.Now().Add(300 * time.Millisecond)
	for time.Now().Before(deadline) {
		if _, err := editor.Write(wire.AppendFrame(nil, []byte(`{"jsonrpc":"2.0","id":2,"method":"scv/session/list"}`))); err != nil {
			t.Fatalf("an initialized connection was closed: %v", err)
		}
		if _, err := r.ReadFrame(); err != nil {
			t.Fatalf("an initialized connection was closed: %v", err)
		}
	}
	editor.Close()
	<-done
}
