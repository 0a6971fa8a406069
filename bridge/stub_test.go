package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"scv/lsp/wire"
)

// waitBound is how long a test waits for something that should happen
// promptly; reaching it means the test failed, never that time passed.
const waitBound = 10 * time.Second

// stubServer is a tiny JSON-RPC responder standing in for the lsp server:
// it echoes requests and understands a few test methods.
//
//	initialize       → {"capabilities":{}}
//	test/notify      → sends test/event {"n":params.n} (and params.pad when
//	                   given) first, then answers
//	test/burst       → sends params.n delta notifications, then answers
//	test/hangup      → closes the connection without answering
//	test/calls-back  → sends a request to the client and answers with the
//	                   client's reply to it
//	test/fail        → a -32000 error with data.code session_not_found
//	test/never-answers → nothing
//	scv/daemon/status, scv/session/list → fixed example results
//	shutdown         → null
//	exit (notification) → returns
//	anything else    → {"method":..., "params":...}
//
// Shutdown sends scv/turn/cancelled to every connection.
type stubServer struct {
	mu      sync.Mutex
	conns   map[*stubConn]struct{}
	cancels []json.RawMessage // params of $/cancelRequest seen
	served  chan struct{}     // one value per ServeConn that returned
	// ignoreEOF makes ServeConn wait for its context instead of returning at
	// EOF: a server that does not finish flushing.
	ignoreEOF bool
}

type stubConn struct {
	mu sync.Mutex
	c  net.Conn
}

func (s *stubConn) write(msg any) error {
	body, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err = s.c.Write(wire.AppendFrame(nil, body))
	return err
}

func newStubServer() *stubServer {
	return &stubServer{conns: make(map[*stubConn]struct{}), served: make(chan struct{}, 256)}
}

func (s *stubServer) Serve(ctx context.Context, c net.Conn) {
	defer func() { s.served <- struct{}{} }()
	sc := &stubConn{c: c}
	s.mu.Lock()
	s.conns[sc] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.conns, sc)
		s.mu.Unlock()
	}()
	r := wire.NewReader(c, MaxClientFrameBytes)
	pendingCallback := map[string]json.RawMessage{} // our request id → the client's request id
	for {
		body, err := r.ReadFrame()
		if err != nil {
			if s.ignoreEOF && errors.Is(err, io.EOF) {
				<-ctx.Done()
			}
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(body, &msg) != nil {
			continue
		}
		if msg.Method == "" { // the client's answer to test/calls-back
			if orig, ok := pendingCallback[string(msg.ID)]; ok {
				delete(pendingCallback, string(msg.ID))
				sc.write(map[string]any{"jsonrpc": "2.0", "id": orig, "result": json.RawMessage(body)})
			}
			continue
		}
		reply := func(result any) { sc.write(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result}) }
		switch msg.Method {
		case "exit":
			return
		case "$/cancelRequest":
			s.mu.Lock()
			s.cancels = append(s.cancels, msg.Params)
			s.mu.Unlock()
		case "initialize":
			reply(map[string]any{"capabilities": map[string]any{}})
		case "shutdown":
			reply(nil)
		case "test/notify":
			var p struct {
				N   int    `json:"n"`
				Pad string `json:"pad"`
			}
			json.Unmarshal(msg.Params, &p)
			params := map[string]any{"n": p.N}
			if p.Pad != "" {
				params["pad"] = p.Pad
			}
			sc.write(map[string]any{"jsonrpc": "2.0", "method": "test/event", "params": params})
			reply(map[string]any{"notified": p.N})
		case "test/burst": // n small notifications in one write, then the answer
			var p struct {
				N int `json:"n"`
			}
			json.Unmarshal(msg.Params, &p)
			var out []byte
			for i := range p.N {
				out = wire.AppendFrame(out, []byte(`{"jsonrpc":"2.0","method":"scv/assistant/delta","params":{"sessionId":"s1","seq":`+
					strconv.Itoa(i+1)+`,"turnId":"t1","content":"token "}}`))
			}
			sc.mu.Lock()
			c.Write(out)
			sc.mu.Unlock()
			reply(map[string]any{"sent": p.N})
		case "test/hangup":
			c.Close()
			return
		case "test/never-answers":
		case "test/fail":
			sc.write(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{
				"code": -32000, "message": "no such session", "data": map[string]any{"code": "session_not_found"}}})
		case "scv/daemon/status":
			reply(map[string]any{"mode": "daemon", "pid": os.Getpid(), "version": "test", "uptimeMs": 61000,
				"socket": "/s.sock", "clients": 2, "sessions": []any{}})
		case "scv/session/list":
			reply(map[string]any{"sessions": []map[string]any{{"sessionId": "s1", "cwd": "/w", "model": "m",
				"state": "running", "queued": 2, "clients": 1, "createdAt": "2026-11-29T10:00:00Z"}}})
		case "test/calls-back":
			id := `"cb-` + string(msg.ID) + `"`
			pendingCallback[id] = msg.ID
			sc.write(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": "client/doSomething", "params": map[string]any{}})
		default:
			if len(msg.ID) == 0 {
				continue
			}
			reply(map[string]any{"method": msg.Method, "params": msg.Params})
		}
	}
}

func (s *stubServer) Shutdown(context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for sc := range s.conns {
		sc.write(map[string]any{"jsonrpc": "2.0", "method": "scv/turn/cancelled",
			"params": map[string]any{"sessionId": "s1", "seq": 7, "turnId": "t1"}})
	}
}

func (s *stubServer) cancelsSeen() []json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]json.RawMessage(nil), s.cancels...)
}

// tempSocket returns a socket path in a fresh short temporary directory
// (t.TempDir paths can exceed the 108-byte sun_path limit).
func tempSocket(t *testing.T) string {
	t.Helper()
	return filepath.Join(shortTempDir(t), "home", SocketName)
}

func shortTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "scv")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// runningDaemon is a Listener.Run in a goroutine owned by the test.
type runningDaemon struct {
	path   string
	stub   *stubServer
	cancel context.CancelFunc
	done   chan error
}

// startDaemon listens on a fresh socket and runs the stub server behind it;
// configure adjusts the options and the listener before Run starts.
func startDaemon(t *testing.T, configure func(*DaemonOptions, *Listener)) *runningDaemon {
	t.Helper()
	path := tempSocket(t)
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	stub := newStubServer()
	opts := DaemonOptions{Serve: stub.Serve, Shutdown: stub.Shutdown, Log: testLog{t}}
	if configure != nil {
		configure(&opts, l)
	}
	ctx, cancel := context.WithCancel(context.Background())
	d := &runningDaemon{path: path, stub: stub, cancel: cancel, done: make(chan error, 1)}
	go func() { d.done <- l.Run(ctx, opts) }()
	t.Cleanup(func() { d.stop(t) })
	return d
}

// stop cancels the daemon and waits for Run; it returns Run's error.
func (d *runningDaemon) stop(t *testing.T) error {
	t.Helper()
	d.cancel()
	if d.done == nil {
		return nil
	}
	select {
	case err := <-d.done:
		d.done = nil
		return err
	case <-time.After(waitBound):
		t.Fatal("daemon did not stop")
		return nil
	}
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Logf("daemon: %s", p)
	return len(p), nil
}

// dialClient connects a Client and initializes it.
func dialClient(t *testing.T, path string, onNotify func(string, json.RawMessage)) *Client {
	t.Helper()
	conn, err := Connect(path)
	if err != nil {
		t.Fatal(err)
	}
	c := NewClient(conn, onNotify)
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	if _, err := c.Initialize(ctx, "test"); err != nil {
		t.Fatal(err)
	}
	return c
}

// readFrameWithin reads one frame from c, failing the test if none comes
// within waitBound. It returns the read error (io.EOF when c was closed).
func readFrameWithin(t *testing.T, r *wire.Reader, c net.Conn) (map[string]any, error) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(waitBound))
	defer c.SetReadDeadline(time.Time{})
	body, err := r.ReadFrame()
	if isTimeout(err) {
		t.Fatalf("nothing arrived within %v", waitBound)
	}
	if err != nil {
		return nil, err
	}
	var msg map[string]any
	if err := json.Unmarshal(body, &msg); err != nil {
		t.Fatalf("frame %q is not JSON: %v", body, err)
	}
	return msg, nil
}

func call(t *testing.T, c *Client, method string, params any) json.RawMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	var res json.RawMessage
	if err := c.Call(ctx, method, params, &res); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return res
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
