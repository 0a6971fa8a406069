package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"sync"
	"testing"
	"time"

	"scv/lsp/wire"
)

// session/start runs off the connection's read loop: while one is held
// (here its provider key lookup waits on a gate the test opens), the
// requests after it on the same connection are answered; then its own
// reply comes.
func TestSessionStartDoesNotHoldTheConnection(t *testing.T) {
	gate := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(gate) }) }
	t.Cleanup(release)
	srv := NewServer(Options{Home: t.TempDir(), Getenv: func(string) string {
		<-gate
		return "test-key"
	}})
	serverSide, editor := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.ServeConn(context.Background(), serverSide) }()
	t.Cleanup(func() {
		release()
		editor.Close()
		<-done
	})

	start, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "scv/session/start",
		"params": map[string]any{"cwd": t.TempDir(), "provider": "openai"}})
	var frames []byte
	for _, body := range [][]byte{
		[]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`),
		start,
		[]byte(`{"jsonrpc":"2.0","id":2,"method":"scv/session/list"}`),
	} {
		frames = wire.AppendFrame(frames, body)
	}
	wrote := make(chan error, 1)
	go func() {
		_, err := editor.Write(frames)
		wrote <- err
	}()
	t.Cleanup(func() { <-wrote })

	// A bound for a failing test only: a passing one reads at once.
	if err := editor.SetReadDeadline(time.Now().Add(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	r := wire.NewReader(editor, 1<<20)
	next := func(what string) []byte {
		t.Helper()
		body, err := r.ReadFrame()
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		return body
	}
	next("the initialize reply")
	if body := next("the session/list reply"); !bytes.Contains(body, []byte(`"id":2`)) {
		t.Fatalf("got %s before the session/list reply", body)
	}
	release()
	if body := next("the session/start reply"); !bytes.Contains(body, []byte(`"id":1`)) || !bytes.Contains(body, []byte(`"sessionId"`)) {
		t.Fatalf("session/start: %s", body)
	}
}
