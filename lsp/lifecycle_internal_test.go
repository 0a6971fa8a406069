package lsp

import (
	"bytes"
	"context"
	"io"
	"net"
	"strconv"
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

// A client that writes requests without reading the replies is slowed
// down: the server stops reading once its replies fill the outbound
// budget, and every reply still arrives, in order, once the client reads.
func TestRequestsWaitWhileRepliesGoUnread(t *testing.T) {
	const budget, requests = 2048, 400
	srv := NewServer(Options{Home: t.TempDir()})
	srv.opts.Protocol.OutboundQueueBytes = budget
	serverSide, editor := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.ServeConn(context.Background(), serverSide) }()

	go func() {
		frame := func(id int, method string) []byte {
			return wire.AppendFrame(nil, []byte(`{"jsonrpc":"2.0","id":`+itoa(id)+`,"method":"`+method+`","params":{}}`))
		}
		if _, err := editor.Write(frame(0, "initialize")); err != nil {
			return
		}
		for id := 1; id <= requests; id++ {
			if _, err := editor.Write(frame(id, "scv/session/list")); err != nil {
				return
			}
		}
	}()
	// Wait, bounded, until the unread replies fill the budget.
	deadline := time.Now().Add(10 * time.Second)
	for queued(srv) < budget {
		if time.Now().After(deadline) {
			t.Fatalf("the replies never filled the %d-byte budget (queued %d)", budget, queued(srv))
		}
		time.Sleep(time.Millisecond) // polling another goroutine's progress, with a bound
	}
	// From here on the unread replies never exceed the budget by more than
	// the one reply that crossed it, however fast the client writes.
	const slack = 256
	r := wire.NewReader(editor, 1<<20)
	for id := 0; id <= requests; id++ {
		if q := queued(srv); q > budget+slack {
			t.Fatalf("%d bytes of replies queued with a budget of %d: the server kept reading requests", q, budget)
		}
		body, err := r.ReadFrame()
		if err != nil {
			t.Fatalf("reply %d: %v", id, err)
		}
		if want := `"id":` + itoa(id) + `,`; !bytes.Contains(body, []byte(want)) {
			t.Fatalf("reply %d out of order: %s", id, body)
		}
	}
	editor.Close()
	<-done
}

func queued(srv *Server) int {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	for c := range srv.conns {
		return c.out.Queued()
	}
	return 0
}

func itoa(n int) string { return strconv.Itoa(n) }
