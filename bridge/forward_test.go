package bridge

import (
	"go.lsp.dev/protocol"

	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"scv/lsp/wire"
)

// editorSide is a fake editor attached to Forward through two pipes, the way
// an editor drives `scv lsp` over stdin and stdout.
type editorSide struct {
	t       *testing.T
	toIn    *os.File // the editor writes requests here (Forward's editorIn)
	fromOut *os.File // the editor reads answers here (Forward's editorOut)
	r       *wire.Reader
	done    chan error // Forward's result
}

// startForward connects to socket and runs Forward between a fake editor
// and that connection.
func startForward(t *testing.T, socket string, limits Limits) *editorSide {
	t.Helper()
	conn, err := Connect(socket)
	if err != nil {
		t.Fatal(err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	e := &editorSide{t: t, toIn: inW, fromOut: outR, r: wire.NewReader(outR, 1<<30), done: make(chan error, 1)}
	go func() {
		e.done <- Forward(context.Background(), inR, outW, conn, ForwardOptions{Limits: limits})
		inR.Close()
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		e.result()
		outR.Close()
	})
	return e
}

func (e *editorSide) send(body string) {
	e.t.Helper()
	if _, err := e.toIn.Write(wire.AppendFrame(nil, []byte(body))); err != nil {
		e.t.Fatalf("editor write: %v", err)
	}
}

func (e *editorSide) read() map[string]any {
	e.t.Helper()
	msg, err := e.tryRead()
	if err != nil {
		e.t.Fatalf("editor read: %v", err)
	}
	return msg
}

func (e *editorSide) tryRead() (map[string]any, error) {
	e.t.Helper()
	e.fromOut.SetReadDeadline(time.Now().Add(waitBound))
	defer e.fromOut.SetReadDeadline(time.Time{})
	body, err := e.r.ReadFrame()
	if isTimeout(err) {
		e.t.Fatalf("nothing reached the editor within %v", waitBound)
	}
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := jsonUnmarshal(body, &m); err != nil {
		e.t.Fatalf("editor got non-JSON %q", body)
	}
	return m, nil
}

// result waits for Forward to return.
func (e *editorSide) result() error {
	e.t.Helper()
	if e.done == nil {
		return nil
	}
	select {
	case err := <-e.done:
		e.done = nil
		return err
	case <-time.After(waitBound):
		e.t.Fatal("Forward did not return")
		return nil
	}
}

func TestForwardRelaysFramesBothWays(t *testing.T) {
	d := startDaemon(t, nil)
	e := startForward(t, d.path, DefaultLimits())
	e.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	if m := e.read(); m["id"] != float64(1) || m["result"] == nil {
		t.Fatalf("initialize answer = %v", m)
	}
	e.send(`{"jsonrpc":"2.0","id":2,"method":"test/notify","params":{"n":5}}`)
	if m := e.read(); m["method"] != "test/event" {
		t.Fatalf("want the daemon's notification first, got %v", m)
	}
	if m := e.read(); m["id"] != float64(2) {
		t.Fatalf("answer = %v", m)
	}
	// A request from the daemon reaches the editor and its answer goes back.
	e.send(`{"jsonrpc":"2.0","id":3,"method":"test/calls-back"}`)
	req := e.read()
	if req["method"] != "client/doSomething" {
		t.Fatalf("server request = %v", req)
	}
	e.send(`{"jsonrpc":"2.0","id":"cb-3","result":{"ok":true}}`)
	if m := e.read(); m["id"] != float64(3) || !strings.Contains(toJSON(m["result"]), `"ok":true`) {
		t.Fatalf("answer after the callback = %v", m)
	}
}

func TestForwardAnswersOversizedEditorFrameAndGoesOn(t *testing.T) {
	d := startDaemon(t, nil)
	e := startForward(t, d.path, Limits{MaxClientFrameBytes: 1024, MaxServerFrameBytes: MaxServerFrameBytes})
	e.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	e.read()
	e.send(`{"jsonrpc":"2.0","id":2,"method":"test/echo","params":{"pad":"` + strings.Repeat("x", 64<<10) + `"}}`)
	assertFrameTooLarge(t, e.read())
	e.send(`{"jsonrpc":"2.0","id":3,"method":"test/echo"}`)
	if m := e.read(); m["id"] != float64(3) {
		t.Fatalf("after the oversized frame: %v", m)
	}
}

// A daemon reply over the bridge's limit is answered for the daemon with
// response_limit, so the editor's request ends; an oversized notification
// is dropped with a log message. The stream goes on after both.
func TestForwardAnswersOversizedDaemonReply(t *testing.T) {
	d := startDaemon(t, nil)
	e := startForward(t, d.path, Limits{MaxClientFrameBytes: MaxClientFrameBytes, MaxServerFrameBytes: 256})
	e.send(`{"jsonrpc":"2.0","id":"big","method":"test/echo","params":{"pad":"` + strings.Repeat("x", 1024) + `"}}`)
	m := e.read()
	errObj, _ := m["error"].(map[string]any)
	data, _ := errObj["data"].(map[string]any)
	if m["id"] != "big" || errObj["code"] != float64(codeApplication) || data["code"] != ErrorCodeResponseLimit {
		t.Fatalf("want a response_limit error for id \"big\", got %v", m)
	}
	e.send(`{"jsonrpc":"2.0","id":2,"method":"test/notify","params":{"n":1,"pad":"` + strings.Repeat("x", 1024) + `"}}`)
	if m := e.read(); m["method"] != "window/logMessage" {
		t.Fatalf("want a log message about the dropped notification, got %v", m)
	}
	if m := e.read(); m["id"] != float64(2) {
		t.Fatalf("after the dropped notification: %v", m)
	}
}

func TestForwardEditorBadFramingCloses(t *testing.T) {
	d := startDaemon(t, nil)
	e := startForward(t, d.path, DefaultLimits())
	e.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	e.read()
	e.toIn.Write([]byte("this is not a header\r\n\r\n"))
	if err := e.result(); !errors.Is(err, wire.ErrBadFraming) {
		t.Fatalf("Forward = %v, want ErrBadFraming", err)
	}
	waitServed(t, d.stub)
}

func TestForwardDaemonLost(t *testing.T) {
	d := startDaemon(t, nil)
	e := startForward(t, d.path, DefaultLimits())
	e.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	e.read()
	e.send(`{"jsonrpc":"2.0","id":2,"method":"test/hangup"}`)
	assertDaemonLostMessage(t, e.read())
	if err := e.result(); !errors.Is(err, ErrDaemonLost) {
		t.Fatalf("Forward = %v, want ErrDaemonLost", err)
	}
}

func assertDaemonLostMessage(t *testing.T, m map[string]any) {
	t.Helper()
	p, _ := m["params"].(map[string]any)
	text, _ := p["message"].(string)
	if m["method"] != "window/showMessage" || p["type"] != float64(protocol.MessageTypeError) ||
		!strings.Contains(text, "lost") || !strings.Contains(text, "Restart") {
		t.Fatalf("want a showMessage error about the lost daemon, got %v", m)
	}
}

func TestForwardEditorGoneClosesDaemonConnection(t *testing.T) {
	d := startDaemon(t, nil)
	e := startForward(t, d.path, DefaultLimits())
	e.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	e.read()
	e.toIn.Close()
	if err := e.result(); err != nil {
		t.Fatalf("Forward = %v, want nil", err)
	}
	waitServed(t, d.stub) // the daemon saw its connection end
	if _, err := e.tryRead(); err != io.EOF {
		t.Fatalf("editor output after the editor left: %v, want EOF and no showMessage", err)
	}
}

func TestForwardExitEndsCleanly(t *testing.T) {
	for _, tc := range []struct {
		name     string
		shutdown bool
		want     error
	}{
		{"after shutdown", true, nil},
		{"without shutdown", false, ErrExitWithoutShutdown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := startDaemon(t, nil)
			e := startForward(t, d.path, DefaultLimits())
			e.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
			e.read()
			if tc.shutdown {
				e.send(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`)
				e.read()
			}
			e.send(`{"jsonrpc":"2.0","method":"exit"}`)
			if err := e.result(); !errors.Is(err, tc.want) && err != tc.want {
				t.Fatalf("Forward = %v, want %v", err, tc.want)
			}
			if _, err := e.tryRead(); err != io.EOF {
				t.Fatalf("editor output after exit: %v, want EOF and no showMessage", err)
			}
		})
	}
}

func waitServed(t *testing.T, s *stubServer) {
	t.Helper()
	select {
	case <-s.served:
	case <-time.After(waitBound):
		t.Fatal("the daemon's connection did not end")
	}
}

// unixProxy relays every connection on its own socket to target, the way
// `ssh -L local.sock:remote.sock` does.
type unixProxy struct {
	ln *net.UnixListener
	wg sync.WaitGroup
	mu sync.Mutex
	cs map[net.Conn]struct{}
}

func startProxy(t *testing.T, target string) string {
	t.Helper()
	path := filepath.Join(shortTempDir(t), "fwd.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	p := &unixProxy{ln: ln, cs: make(map[net.Conn]struct{})}
	p.wg.Add(1)
	go p.accept(target)
	t.Cleanup(func() {
		ln.Close()
		p.mu.Lock()
		for c := range p.cs {
			c.Close()
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
	return path
}

func (p *unixProxy) accept(target string) {
	defer p.wg.Done()
	for {
		local, err := p.ln.Accept()
		if err != nil {
			return
		}
		remote, err := net.Dial("unix", target)
		if err != nil {
			local.Close()
			continue
		}
		p.mu.Lock()
		p.cs[local], p.cs[remote] = struct{}{}, struct{}{}
		p.mu.Unlock()
		// Like ssh, each direction is relayed on its own and an end of input
		// is passed on as a half-close.
		relay := func(dst, src net.Conn) {
			defer p.wg.Done()
			io.Copy(dst, src)
			dst.(*net.UnixConn).CloseWrite()
		}
		p.wg.Add(2)
		go relay(remote, local)
		go relay(local, remote)
	}
}

func TestForwardThroughAForwardedSocket(t *testing.T) {
	d := startDaemon(t, nil)
	fwd := startProxy(t, d.path)
	e := startForward(t, fwd, DefaultLimits())
	e.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	if m := e.read(); m["id"] != float64(1) {
		t.Fatalf("initialize through the proxy = %v", m)
	}
	e.send(`{"jsonrpc":"2.0","id":2,"method":"test/notify","params":{"n":1}}`)
	e.read()
	if m := e.read(); m["id"] != float64(2) {
		t.Fatalf("answer through the proxy = %v", m)
	}
	// The daemon shuts down mid-session: the editor receives what the daemon
	// sent while draining, then the lost-connection message.
	if err := d.stop(t); err != nil {
		t.Fatal(err)
	}
	if m := e.read(); m["method"] != "scv/turn/cancelled" {
		t.Fatalf("want turn/cancelled before the end, got %v", m)
	}
	assertDaemonLostMessage(t, e.read())
	if err := e.result(); !errors.Is(err, ErrDaemonLost) {
		t.Fatalf("Forward = %v, want ErrDaemonLost", err)
	}
}

func TestForwardEditorGoneThroughAForwardedSocket(t *testing.T) {
	d := startDaemon(t, nil)
	e := startForward(t, startProxy(t, d.path), DefaultLimits())
	e.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	e.read()
	e.toIn.Close()
	if err := e.result(); err != nil {
		t.Fatalf("Forward = %v", err)
	}
	waitServed(t, d.stub)
}

func TestForwardEndsWhenEditorStopsReading(t *testing.T) {
	d := startDaemon(t, nil)
	e := startForward(t, d.path, DefaultLimits())
	// The editor asks for far more than the pipe, the queue and the socket
	// hold, never reads, and then closes its input.
	e.send(`{"jsonrpc":"2.0","id":1,"method":"test/burst","params":{"n":200000}}`)
	e.toIn.Close()
	if err := e.result(); err != nil {
		t.Fatalf("Forward = %v, want nil (the editor left)", err)
	}
	waitServed(t, d.stub)
}
