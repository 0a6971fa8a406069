package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"scv/lsp/wire"
	"scv/runtime/config"
)

// fuzzHangBound is how long a fuzzed connection may take to answer its
// last request, or to end once the client has gone, before it counts as
// hung. Far above what any input needs; it only catches real hangs.
const fuzzHangBound = 20 * time.Second

// Placeholders an input may hold: fuzzWorkspace stands for a fresh
// workspace directory, so that seeds start sessions without touching the
// machine's directories; fuzzSession for the id of a session the harness
// starts there first, since ids are random and could not be guessed.
const (
	fuzzWorkspace = "$CWD"
	fuzzSession   = "$SID"
)

// FuzzDispatch feeds arbitrary messages to a server connection, after an
// initialize so that every method is reachable. Each line of the input is
// sent as one frame; an input that starts with "Content-Length:" is sent
// raw instead, framing and all. Whatever the input, the server must not
// panic, must answer only with well-formed JSON-RPC frames, must answer a
// final request (dispatch is not stuck) unless the input ended the
// connection, and must end the connection when the client goes away. The
// seed corpus is in testdata/fuzz/FuzzDispatch.
func FuzzDispatch(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":2,"method":"scv/session/list"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		home, work := t.TempDir(), t.TempDir()
		data = bytes.ReplaceAll(data, []byte(fuzzWorkspace), []byte(work))
		srv := NewServer(Options{
			Home:   home,
			Getenv: func(string) string { return "" },
			// Offline, and nothing runs without an approval the input
			// cannot forge (approval ids are random).
			Flags: config.Overrides{Provider: "replay", ApprovalPolicy: config.PolicyAlways},
		})
		serverSide, editor := net.Pipe()
		served := make(chan struct{}) // closed when ServeConn returns
		go func() {
			defer close(served)
			_ = srv.ServeConn(context.Background(), serverSide)
			serverSide.Close() // as its owner does: a write after exit fails

		}()
		const lastID = "fuzz-last"
		answered := make(chan struct{})
		started := make(chan string, 1)
		readDone := make(chan error, 1)
		go func() { readDone <- readReplies(editor, lastID, answered, started) }()
		defer func() {
			editor.Close()
			select {
			case <-served:
			case <-time.After(fuzzHangBound):
				t.Fatalf("the connection did not end after the client left; input %q", data)
			}
			if err := <-readDone; err != nil {
				t.Fatalf("%v; input %q", err, data)
			}
		}()

		_ = editor.SetWriteDeadline(time.Now().Add(fuzzHangBound))
		send := func(body []byte) error {
			_, err := editor.Write(wire.AppendFrame(nil, body))
			return err
		}
		if err := send([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)); err != nil {
			t.Fatalf("initialize: %v", err)
		}
		if bytes.Contains(data, []byte(fuzzSession)) {
			start, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": startID, "method": "scv/session/start", "params": map[string]string{"cwd": work}})
			if err := send(start); err != nil {
				t.Fatalf("session/start: %v", err)
			}
			select {
			case sid := <-started:
				data = bytes.ReplaceAll(data, []byte(fuzzSession), []byte(sid))
			case <-time.After(fuzzHangBound):
				t.Fatal("no answer to session/start")
			}
		}
		if bytes.HasPrefix(data, []byte("Content-Length:")) {
			_, _ = editor.Write(data)
			return // the input may leave a frame unfinished: only the end is checked
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			if err := send(line); err != nil {
				checkEnded(t, served, err, data)
				return
			}
		}
		if err := send([]byte(`{"jsonrpc":"2.0","id":"` + lastID + `","method":"scv/session/list"}`)); err != nil {
			checkEnded(t, served, err, data)
			return
		}
		select {
		case <-answered:
		case <-served: // the input ended the connection (exit)
		case <-time.After(fuzzHangBound):
			t.Fatalf("dispatch hung: no answer to the last request; input %q", data)
		}
	})
}

// checkEnded accepts a failed write only when the server has ended the
// connection (after exit); a write that timed out means the server stopped
// reading.
func checkEnded(t *testing.T, served <-chan struct{}, writeErr error, data []byte) {
	t.Helper()
	var netErr net.Error
	if errors.As(writeErr, &netErr) && netErr.Timeout() {
		t.Fatalf("the server stopped reading: %v; input %q", writeErr, data)
	}
	select {
	case <-served:
	case <-time.After(fuzzHangBound):
		t.Fatalf("a write failed (%v) but the connection did not end; input %q", writeErr, data)
	}
}

// startID is the id of the harness's own session/start.
const startID = "fuzz-start"

// readReplies reads what the server sends until the connection ends,
// checks each frame is a JSON-RPC 2.0 object, sends the session id the
// reply to startID carries (empty on an error) and closes answered when
// the reply to lastID arrives.
func readReplies(conn net.Conn, lastID string, answered chan<- struct{}, started chan<- string) error {
	r := wire.NewReader(conn, 64<<20)
	for {
		body, err := r.ReadFrame()
		if err != nil {
			if errors.Is(err, wire.ErrBadFraming) {
				return fmt.Errorf("the server wrote a bad frame: %w", err)
			}
			return nil // the connection ended
		}
		var msg struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Result  json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(body, &msg); err != nil || msg.JSONRPC != "2.0" {
			return fmt.Errorf("the server wrote a frame that is not JSON-RPC 2.0 (%v): %q", err, body)
		}
		switch string(msg.ID) {
		case `"` + lastID + `"`:
			close(answered)
		case `"` + startID + `"`:
			var snap struct {
				SessionID string `json:"sessionId"`
			}
			_ = json.Unmarshal(msg.Result, &snap)
			started <- snap.SessionID
		}
	}
}
