package bridge

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// socketPair returns two connected stream sockets: an editor's pipe pair in
// one value.
func socketPair(b testing.TB) (net.Conn, net.Conn) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		b.Fatal(err)
	}
	conns := make([]net.Conn, 2)
	for i, fd := range fds {
		f := os.NewFile(uintptr(fd), "pair")
		c, err := net.FileConn(f)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		conns[i] = c
	}
	return conns[0], conns[1]
}

// benchClient returns a client on the daemon, directly or through Forward.
func benchClient(b *testing.B, path string, forwarded bool, onNotify func(string, json.RawMessage)) *Client {
	daemonConn, err := Connect(path)
	if err != nil {
		b.Fatal(err)
	}
	conn := net.Conn(daemonConn)
	if forwarded {
		editor, bridgeEnd := socketPair(b)
		done := make(chan error, 1)
		go func() {
			done <- Forward(context.Background(), bridgeEnd, bridgeEnd, daemonConn, ForwardOptions{Limits: DefaultLimits()})
		}()
		b.Cleanup(func() { editor.Close(); <-done; bridgeEnd.Close() })
		conn = editor
	}
	c := NewClient(conn, onNotify)
	b.Cleanup(func() { c.Close() })
	if _, err := c.Initialize(context.Background(), "bench"); err != nil {
		b.Fatal(err)
	}
	return c
}

func benchDaemon(b *testing.B) string {
	dir, err := os.MkdirTemp("", "scv")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	path := dir + "/s.sock"
	l, err := Listen(path)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx, DaemonOptions{Serve: newStubServer().Serve}) }()
	b.Cleanup(func() { cancel(); <-done })
	return path
}

func benchRoundTrip(b *testing.B, forwarded bool) {
	c := benchClient(b, benchDaemon(b), forwarded, nil)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if err := c.Call(ctx, "test/echo", nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRoundTripDirect(b *testing.B)    { benchRoundTrip(b, false) }
func BenchmarkRoundTripForwarded(b *testing.B) { benchRoundTrip(b, true) }

const benchBurst = 10000

func benchDeltas(b *testing.B, forwarded bool) {
	got := 0
	c := benchClient(b, benchDaemon(b), forwarded, func(string, json.RawMessage) { got++ })
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if err := c.Call(ctx, "test/burst", map[string]any{"n": benchBurst}, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if got != b.N*benchBurst {
		b.Fatalf("received %d deltas, want %d", got, b.N*benchBurst)
	}
	b.ReportMetric(float64(b.N*benchBurst)/b.Elapsed().Seconds(), "deltas/s")
}

func BenchmarkDeltasDirect(b *testing.B)    { benchDeltas(b, false) }
func BenchmarkDeltasForwarded(b *testing.B) { benchDeltas(b, true) }
