package e2e

import (
	"go.lsp.dev/protocol"

	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"scv/bridge"
	"scv/lsp/wire"
)

func TestSecondDaemonExitsAlreadyRunning(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	first := e.daemon()
	second := e.start(nil, nil, "daemon")
	if code := second.wait(t); code != 1 {
		t.Fatalf("the second daemon exited %d, want 1:\n%s", code, second.output.String())
	}
	if want := "already running at " + e.socket; !strings.Contains(second.output.String(), want) {
		t.Fatalf("the second daemon said %q, want %q", second.output.String(), want)
	}
	if first.exited() {
		t.Fatalf("the first daemon exited:\n%s", first.output.String())
	}
	e.direct("after the second daemon").initialize()
}

func TestRegularFileAtSocketPathIsKept(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const content = "not a socket\n"
	if err := os.WriteFile(e.socket, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	d := e.start(nil, nil, "daemon")
	if code := d.wait(t); code != 1 {
		t.Fatalf("the daemon exited %d over a regular file, want 1:\n%s", code, d.output.String())
	}
	if out := d.output.String(); !strings.Contains(out, e.socket) || !strings.Contains(out, "regular file") {
		t.Fatalf("the error does not name the path and what is there:\n%s", out)
	}
	data, err := os.ReadFile(e.socket)
	if err != nil || string(data) != content {
		t.Fatalf("the file at the socket path was touched: %q, %v", data, err)
	}
	if exists(bridge.LockPath(e.socket)) {
		t.Errorf("the refused daemon left its lock file behind")
	}
}

func TestStaleSocketIsReplaced(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// A socket file nobody listens on, as a crashed daemon leaves.
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: e.socket, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	if _, err := net.Dial("unix", e.socket); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("the stale socket is not stale: %v", err)
	}
	e.daemon()
	e.direct("on the replaced socket").initialize()
}

func TestSilentPeerIsClosedAfterHandshakeTimeout(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := e.daemon()
	c, err := bridge.Connect(e.socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The daemon must close it after bridge.HandshakeTimeout; the bound
	// here only keeps a broken daemon from hanging the test.
	c.SetReadDeadline(time.Now().Add(bridge.HandshakeTimeout + waitTimeout))
	n, err := c.Read(make([]byte, 1))
	if n != 0 || !errors.Is(err, io.EOF) {
		t.Fatalf("the silent peer read %d bytes, %v; want EOF from the daemon closing it", n, err)
	}
	d.awaitOutput(t, "no first frame within")
	e.direct("after the silent peer").initialize()
}

func TestGarbagePeers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.daemon()

	t.Run("bad framing is closed", func(t *testing.T) {
		c := rawConn(t, e)
		c.Write([]byte("GET / HTTP/1.1\r\nHost: scv\r\n\r\n"))
		if body, err := c.readFrame(); err == nil {
			t.Fatalf("garbage framing was answered with %s; want the connection closed", body)
		}
	})
	t.Run("an oversized first frame is refused", func(t *testing.T) {
		c := rawConn(t, e)
		// The daemon reads the body it refuses (without keeping it), so the
		// peer sends it whole; the daemon may hang up before the end.
		frame := fmt.Appendf(nil, "Content-Length: %d\r\n\r\n", bridge.MaxClientFrameBytes+1)
		frame = append(frame, make([]byte, bridge.MaxClientFrameBytes+1)...)
		written := make(chan struct{})
		go func() {
			defer close(written)
			c.Write(frame)
		}()
		defer func() { c.Close(); <-written }()
		body, err := c.readFrame()
		if err != nil || !strings.Contains(string(body), bridge.ErrorCodeFrameTooLarge) {
			t.Fatalf("an oversized first frame got %s, %v; want a frame_too_large error", body, err)
		}
		if body, err := c.readFrame(); err == nil {
			t.Fatalf("after frame_too_large the connection carried %s; want it closed", body)
		}
	})
	t.Run("a frame that is not JSON is answered and the connection stays", func(t *testing.T) {
		c := rawConn(t, e)
		c.Write(wire.AppendFrame(nil, []byte("{not json")))
		body, err := c.readFrame()
		if err != nil || !strings.Contains(string(body), "-32700") {
			t.Fatalf("a body that is not JSON got %s, %v; want a -32700 parse error", body, err)
		}
		c.Write(wire.AppendFrame(nil, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)))
		body, err = c.readFrame()
		if err != nil || !strings.Contains(string(body), `"serverInfo"`) {
			t.Fatalf("initialize after the bad frame got %s, %v", body, err)
		}
	})
	e.direct("after the garbage").initialize()
}

// The daemon serves bridge.MaxConnections connections; the next one is
// told why it is refused, through a bridge too, and a freed slot is usable.
func TestConnectionLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.daemon()
	windows := make([]*window, bridge.MaxConnections)
	for i := range windows {
		windows[i] = e.direct(fmt.Sprintf("connection %d", i+1))
		if got := windows[i].initialize().Capabilities.Experimental.SCV.Limits.MaxConnections; got != bridge.MaxConnections {
			t.Fatalf("initialize advertises maxConnections %d, want %d", got, bridge.MaxConnections)
		}
	}

	c := rawConn(t, e)
	c.Write(wire.AppendFrame(nil, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)))
	body, err := c.readFrame()
	if err != nil {
		t.Fatalf("connection %d: %v; want a window/showMessage saying why it is refused", bridge.MaxConnections+1, err)
	}
	var msg struct {
		Method string                     `json:"method"`
		Params protocol.ShowMessageParams `json:"params"`
	}
	json.Unmarshal(body, &msg)
	if msg.Method != "window/showMessage" || msg.Params.Type != protocol.MessageTypeError ||
		!strings.Contains(msg.Params.Message, "too many connections") || !strings.Contains(msg.Params.Message, fmt.Sprint(bridge.MaxConnections)) {
		t.Fatalf("connection %d got %s; want a showMessage error naming the limit", bridge.MaxConnections+1, body)
	}
	if body, err := c.readFrame(); err == nil {
		t.Fatalf("the refused connection then carried %s; want it closed", body)
	}

	// An editor behind a bridge sees the same message, and the bridge exits
	// non-zero so the editor can retry.
	w := e.bridge("refused window", "--daemon=auto")
	if err := w.call("initialize", map[string]any{}, nil); err == nil {
		t.Fatal("initialize through a refused bridge succeeded")
	}
	w.awaitNote("window/showMessage", func(n note) bool { return strings.Contains(string(n.Params), "too many connections") })
	if code := w.proc.wait(t); code == 0 {
		t.Fatal("the refused bridge exited 0")
	}

	// A freed slot admits a new connection once the daemon has noticed.
	windows[0].close()
	deadline := time.Now().Add(waitTimeout)
	for {
		conn := rawConn(t, e)
		conn.Write(wire.AppendFrame(nil, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)))
		body, err := conn.readFrame()
		conn.Close()
		if err == nil && strings.Contains(string(body), `"serverInfo"`) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no connection was admitted after one closed: %s, %v", body, err)
		}
		time.Sleep(socketPoll)
	}
}

// raw is a bare connection to the daemon and a frame reader on it.
type raw struct {
	*net.UnixConn
	r *wire.Reader
}

// rawConn connects to the daemon; the connection is closed when the test ends.
func rawConn(t *testing.T, e *env) raw {
	t.Helper()
	c, err := bridge.Connect(e.socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(waitTimeout))
	return raw{c, wire.NewReader(c, 1<<20)}
}

func (c raw) readFrame() ([]byte, error) { return c.r.ReadFrame() }
