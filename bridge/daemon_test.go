package bridge

import (
	"go.lsp.dev/protocol"

	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"scv/lsp/wire"
)

func TestDaemonServesAndReplaysFirstFrame(t *testing.T) {
	d := startDaemon(t, nil)
	c := dialClient(t, d.path, nil) // initialize went through the handshake replay
	res := call(t, c, "test/echo", map[string]any{"x": 1})
	if !strings.Contains(string(res), `"test/echo"`) {
		t.Fatalf("echo = %s", res)
	}
}

func TestDaemonReplaysPipelinedFrames(t *testing.T) {
	// Frames sent together with the first one arrive in the same read as it
	// and must reach the server too.
	d := startDaemon(t, nil)
	conn, err := Connect(d.path)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var out []byte
	for i := 1; i <= 3; i++ {
		out = wire.AppendFrame(out, []byte(`{"jsonrpc":"2.0","id":`+string(rune('0'+i))+`,"method":"test/echo"}`))
	}
	if _, err := conn.Write(out); err != nil {
		t.Fatal(err)
	}
	r := wire.NewReader(conn, MaxServerFrameBytes)
	for i := 1; i <= 3; i++ {
		msg, err := readFrameWithin(t, r, conn)
		if err != nil || msg["id"] != float64(i) {
			t.Fatalf("answer %d = %v, %v", i, msg, err)
		}
	}
}

func TestDaemonClosesPeerThatSendsNothing(t *testing.T) {
	d := startDaemon(t, func(o *DaemonOptions, _ *Listener) { o.HandshakeTimeout = 200 * time.Millisecond })
	conn, err := Connect(d.path)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if msg, err := readFrameWithin(t, wire.NewReader(conn, 1<<20), conn); err != io.EOF {
		t.Fatalf("silent peer got %v, %v; want the connection closed", msg, err)
	}
	select {
	case <-d.stub.served:
		t.Fatal("the server was handed a connection that never sent a frame")
	default:
	}
}

func TestDaemonClosesGarbagePeerWithoutAffectingOthers(t *testing.T) {
	d := startDaemon(t, nil)
	good := dialClient(t, d.path, nil)

	bad, err := Connect(d.path)
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	if _, err := bad.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	if msg, err := readFrameWithin(t, wire.NewReader(bad, 1<<20), bad); err != io.EOF {
		t.Fatalf("garbage peer got %v, %v; want the connection closed", msg, err)
	}
	call(t, good, "test/echo", nil)
}

func TestDaemonAnswersOversizedFirstFrameAndCloses(t *testing.T) {
	d := startDaemon(t, func(o *DaemonOptions, _ *Listener) { o.MaxFirstFrameBytes = 1024 })
	conn, err := Connect(d.path)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"` + strings.Repeat("x", 4096) + `"}}`
	go conn.Write(wire.AppendFrame(nil, []byte(body))) // the daemon may close before reading it all
	r := wire.NewReader(conn, 1<<20)
	msg, err := readFrameWithin(t, r, conn)
	if err != nil {
		t.Fatal(err)
	}
	assertFrameTooLarge(t, msg)
	if _, err := readFrameWithin(t, r, conn); err == nil {
		t.Fatal("connection still open after an oversized first frame")
	}
}

func assertFrameTooLarge(t *testing.T, msg map[string]any) {
	t.Helper()
	e, _ := msg["error"].(map[string]any)
	data, _ := e["data"].(map[string]any)
	if msg["id"] != nil || e["code"] != float64(-32600) || data["code"] != ErrorCodeFrameTooLarge {
		t.Fatalf("answer = %v, want -32600 frame_too_large with id null", msg)
	}
}

func TestDaemonRefusesConnectionOverLimit(t *testing.T) {
	d := startDaemon(t, nil)
	for range MaxConnections {
		dialClient(t, d.path, nil) // initialized, so certainly counted
	}
	conn, err := Connect(d.path)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r := wire.NewReader(conn, 1<<20)
	msg, err := readFrameWithin(t, r, conn)
	if err != nil {
		t.Fatalf("connection %d: %v, want a showMessage", MaxConnections+1, err)
	}
	params, _ := msg["params"].(map[string]any)
	text, _ := params["message"].(string)
	if msg["method"] != "window/showMessage" || params["type"] != float64(protocol.MessageTypeError) || !strings.Contains(text, "too many connections") {
		t.Fatalf("refusal = %v", msg)
	}
	if _, err := readFrameWithin(t, r, conn); err != io.EOF {
		t.Fatalf("after the refusal: %v, want EOF", err)
	}
	// A client sees the reason as the error of its initialize.
	conn2, err := Connect(d.path)
	if err != nil {
		t.Fatal(err)
	}
	c := NewClient(conn2, nil)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	if _, err := c.Initialize(ctx, "test"); !errors.Is(err, ErrConnectionClosed) || !strings.Contains(err.Error(), "too many connections") {
		t.Fatalf("initialize on a refused connection = %v", err)
	}
}

func TestDaemonRefusesAnotherUser(t *testing.T) {
	d := startDaemon(t, func(_ *DaemonOptions, l *Listener) { l.uid = os.Getuid() + 1 })
	conn, err := net.Dial("unix", d.path)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.Write(wire.AppendFrame(nil, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`)))
	if msg, err := readFrameWithin(t, wire.NewReader(conn, 1<<20), conn); err == nil {
		t.Fatalf("another user's connection was answered: %v", msg)
	}
	select {
	case <-d.stub.served:
		t.Fatal("another user's connection reached the server")
	default:
	}
}

func TestDaemonShutdownFlushesThenCleansUp(t *testing.T) {
	d := startDaemon(t, nil)
	events := make(chan string, 16)
	c := dialClient(t, d.path, func(method string, _ json.RawMessage) { events <- method })
	if err := d.stop(t); err != nil {
		t.Fatalf("Run = %v, want nil", err)
	}
	select {
	case m := <-events:
		if m != "scv/turn/cancelled" {
			t.Fatalf("first event after shutdown = %s", m)
		}
	case <-time.After(waitBound):
		t.Fatal("the client did not receive turn/cancelled before the socket closed")
	}
	select {
	case <-c.Done():
	case <-time.After(waitBound):
		t.Fatal("the connection was not closed at shutdown")
	}
	for _, p := range []string{d.path, LockPath(d.path)} {
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s after shutdown: %v, want removed", p, err)
		}
	}
}

func TestDaemonShutdownClosesConnectionsThatDoNotFinish(t *testing.T) {
	var ctxDone atomic.Bool
	stub := newStubServer()
	stub.ignoreEOF = true
	d := startDaemon(t, func(o *DaemonOptions, _ *Listener) {
		o.FlushTimeout = 200 * time.Millisecond
		o.Serve = func(ctx context.Context, c net.Conn) {
			stub.Serve(ctx, c)
			ctxDone.Store(ctx.Err() != nil)
		}
	})
	c := dialClient(t, d.path, nil)
	if err := d.stop(t); err != nil {
		t.Fatal(err)
	}
	if !ctxDone.Load() {
		t.Fatal("Serve returned without its context being cancelled")
	}
	<-c.Done()
}

func TestDaemonIdleTimeout(t *testing.T) {
	var busy atomic.Bool
	busy.Store(true)
	checks := make(chan bool, 1024)
	d := startDaemon(t, func(o *DaemonOptions, _ *Listener) {
		o.IdleTimeout = 40 * time.Millisecond
		o.Busy = func() bool {
			b := busy.Load()
			select {
			case checks <- b:
			default:
			}
			return b
		}
	})
	// Several idle checks while a turn runs, spanning more than the timeout.
	waitChecks(t, checks, 8)
	c := dialClient(t, d.path, nil)
	busy.Store(false)
	waitChecks(t, checks, 8) // connected: not idle either
	select {
	case err := <-d.done:
		t.Fatalf("daemon stopped while busy or connected: %v", err)
	default:
	}
	c.Close()
	select {
	case err := <-d.done:
		d.done = nil
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(waitBound):
		t.Fatal("idle daemon did not stop")
	}
	if _, err := os.Lstat(d.path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("socket after idle exit: %v", err)
	}
}

func waitChecks(t *testing.T, checks <-chan bool, n int) {
	t.Helper()
	for range n {
		select {
		case <-checks:
		case <-time.After(waitBound):
			t.Fatal("the idle check stopped running")
		}
	}
}

func TestRunDaemonSecondInstance(t *testing.T) {
	d := startDaemon(t, nil)
	err := RunDaemon(context.Background(), DaemonOptions{Socket: d.path, Serve: newStubServer().Serve})
	var running *AlreadyRunningError
	if !errors.As(err, &running) {
		t.Fatalf("RunDaemon = %v, want AlreadyRunningError", err)
	}
	dialClient(t, d.path, nil) // the first daemon is unaffected
}

// A panic while serving one connection (a defect in the server's read loop,
// say) ends that connection only: the daemon and its other connections go on.
func TestDaemonSurvivesAPanicServingAConnection(t *testing.T) {
	var served atomic.Int32
	d := startDaemon(t, func(o *DaemonOptions, _ *Listener) {
		serve := o.Serve
		o.Serve = func(ctx context.Context, conn net.Conn) {
			if served.Add(1) == 1 {
				panic("a defect in the connection loop")
			}
			serve(ctx, conn)
		}
	})
	bad, err := Connect(d.path)
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	if _, err := bad.Write(wire.AppendFrame(nil, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))); err != nil {
		t.Fatal(err)
	}
	if msg, err := readFrameWithin(t, wire.NewReader(bad, 1<<20), bad); err != io.EOF {
		t.Fatalf("the panicking connection got %v, %v; want it closed", msg, err)
	}
	good := dialClient(t, d.path, nil)
	call(t, good, "test/echo", nil)
}
