package bridge

import (
	"go.lsp.dev/protocol"

	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"scv/lsp/wire"
)

const (
	// MaxConnections is how many connections one daemon serves at once
	// (advertised at initialize). Connection MaxConnections+1 receives a
	// window/showMessage error saying why, and is closed.
	MaxConnections = 64
	// HandshakeTimeout is how long a new connection has to send its first
	// frame (initialize) before it is closed.
	HandshakeTimeout = 5 * time.Second
	// ShutdownTimeout bounds DaemonOptions.Shutdown: the server's 3 s grace
	// for cancelling turns plus time to report them.
	ShutdownTimeout = 5 * time.Second
	// FlushTimeout bounds how long connections get, after Shutdown, to write
	// what they were already sent before they are closed regardless.
	FlushTimeout = 5 * time.Second
	// refusalWriteTimeout bounds telling a refused peer why.
	refusalWriteTimeout = time.Second
	// Bounds of the idle check's period (a quarter of the idle timeout).
	minIdleCheck = 10 * time.Millisecond
	maxIdleCheck = time.Second
	// Accept-error backoff (descriptor exhaustion and the like).
	minAcceptBackoff = 5 * time.Millisecond
	maxAcceptBackoff = time.Second
)

// DaemonOptions configure RunDaemon and Listener.Run.
type DaemonOptions struct {
	// Socket is the socket path (RunDaemon only).
	Socket string
	// IdleTimeout, when positive, ends the daemon after that long with no
	// connection and Busy reporting false.
	IdleTimeout time.Duration
	// Serve serves one connection until the peer hangs up (read EOF) or asks
	// to exit. Before returning it writes what it had queued for the peer.
	// The connection replays the first frame the daemon already read. Its
	// context is cancelled only when FlushTimeout has passed during shutdown.
	// The daemon closes the connection after Serve returns.
	Serve func(ctx context.Context, conn net.Conn)
	// Shutdown, when set, is called once at shutdown after accepting has
	// stopped: it cancels running turns and queues their last events to
	// every attached connection. Its context expires after ShutdownTimeout.
	Shutdown func(ctx context.Context)
	// Busy, when set, reports a running turn; it keeps an idle daemon alive.
	Busy func() bool
	// Log receives one line per notable event; nil discards them.
	Log io.Writer

	// Test knobs; zero means the named constant.
	HandshakeTimeout   time.Duration
	MaxConnections     int
	FlushTimeout       time.Duration
	MaxFirstFrameBytes int // default MaxClientFrameBytes
}

func (o DaemonOptions) withDefaults() DaemonOptions {
	if o.HandshakeTimeout <= 0 {
		o.HandshakeTimeout = HandshakeTimeout
	}
	if o.MaxConnections <= 0 {
		o.MaxConnections = MaxConnections
	}
	if o.FlushTimeout <= 0 {
		o.FlushTimeout = FlushTimeout
	}
	if o.MaxFirstFrameBytes <= 0 {
		o.MaxFirstFrameBytes = MaxClientFrameBytes
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	return o
}

// RunDaemon listens on opts.Socket and serves until ctx is cancelled or the
// idle timeout passes, then drains and returns nil. A second daemon gets
// *AlreadyRunningError.
func RunDaemon(ctx context.Context, opts DaemonOptions) error {
	l, err := Listen(opts.Socket)
	if err != nil {
		return err
	}
	return l.Run(ctx, opts)
}

// daemon is the state of one Run: the live connections and their goroutines.
type daemon struct {
	opts DaemonOptions
	uid  int
	log  *slog.Logger

	serveCtx    context.Context
	cancelServe context.CancelFunc

	wg           sync.WaitGroup // every connection goroutine, served or refused
	mu           sync.Mutex
	conns        map[*net.UnixConn]struct{}
	lastActivity time.Time
}

// Run accepts connections until ctx is cancelled or the daemon has been
// idle for opts.IdleTimeout; then it stops accepting, calls opts.Shutdown,
// lets every connection flush (bounded by FlushTimeout), closes the
// listener (removing socket and lock) and returns. The error is nil unless
// accepting failed for good.
func (l *Listener) Run(ctx context.Context, opts DaemonOptions) error {
	defer l.Close()
	if opts.Serve == nil {
		return errors.New("bridge: DaemonOptions.Serve is required")
	}
	opts = opts.withDefaults()
	d := &daemon{
		opts:         opts,
		uid:          l.uid,
		log:          slog.New(slog.NewTextHandler(opts.Log, nil)),
		conns:        make(map[*net.UnixConn]struct{}),
		lastActivity: time.Now(),
	}
	d.serveCtx, d.cancelServe = context.WithCancel(context.Background())
	defer d.cancelServe()
	d.log.Info("scv daemon listening", "socket", l.path, "pid", os.Getpid())

	acceptDone := make(chan error, 1)
	go func() { acceptDone <- d.acceptLoop(l.ln) }()

	var idleTick <-chan time.Time
	if opts.IdleTimeout > 0 {
		t := time.NewTicker(min(max(opts.IdleTimeout/4, minIdleCheck), maxIdleCheck))
		defer t.Stop()
		idleTick = t.C
	}
	var runErr error
	var idleSince time.Time
wait:
	for {
		select {
		case <-ctx.Done():
			d.log.Info("stopping", "reason", "signal")
			break wait
		case err := <-acceptDone:
			acceptDone = nil
			runErr = fmt.Errorf("accept on %s: %w", l.path, err)
			d.log.Error("stopping", "reason", "accept failed", "err", err)
			break wait
		case now := <-idleTick:
			if !d.idle() {
				idleSince = time.Time{}
				continue
			}
			if idleSince.IsZero() {
				idleSince = now
			}
			d.mu.Lock()
			since := idleSince
			if d.lastActivity.After(since) {
				since = d.lastActivity
			}
			d.mu.Unlock()
			if now.Sub(since) >= opts.IdleTimeout {
				d.log.Info("stopping", "reason", "idle", "idleTimeout", opts.IdleTimeout)
				break wait
			}
		}
	}
	l.stopAccepting()
	if acceptDone != nil {
		<-acceptDone
	}
	d.drain()
	d.log.Info("scv daemon stopped")
	return runErr
}

func (d *daemon) idle() bool {
	busy := d.opts.Busy != nil && d.opts.Busy()
	d.mu.Lock()
	n := len(d.conns)
	d.mu.Unlock()
	return n == 0 && !busy
}

// acceptLoop returns nil once the listener is closed, or the error that
// made accepting impossible.
func (d *daemon) acceptLoop(ln *net.UnixListener) error {
	backoff := time.Duration(0)
	for {
		c, err := ln.AcceptUnix()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			// Descriptor exhaustion and aborted handshakes pass; back off so
			// a persistent failure does not spin.
			backoff = min(max(2*backoff, minAcceptBackoff), maxAcceptBackoff)
			d.log.Warn("accept failed", "err", err, "retryIn", backoff)
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		d.admit(c)
	}
}

// admit checks a new connection's peer and the connection limit, and starts
// the goroutine that serves or refuses it.
func (d *daemon) admit(c *net.UnixConn) {
	uid, err := peerUID(c)
	if err != nil || uid != d.uid {
		d.log.Warn("refused a connection from another user", "peerUid", uid, "err", err)
		c.Close()
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.conns) >= d.opts.MaxConnections {
		d.wg.Add(1)
		go d.refuse(c)
		return
	}
	d.conns[c] = struct{}{}
	d.lastActivity = time.Now()
	d.wg.Add(1)
	go d.handle(c)
}

func (d *daemon) refuse(c *net.UnixConn) {
	defer d.wg.Done()
	d.log.Warn("refused a connection", "reason", ErrorCodeTooManyConnections, "limit", d.opts.MaxConnections)
	msg := fmt.Sprintf("scv daemon: too many connections (the limit is %d); close another editor window or scv client and try again",
		d.opts.MaxConnections)
	closeTelling(c, showMessage(protocol.MessageTypeError, msg))
}

// closeTelling sends a last frame, then ends the connection so that the
// peer reads that frame and a clean EOF: closing a Unix socket with unread
// input would make the peer's next read fail with "connection reset"
// instead. What the peer still sends is discarded for at most
// refusalWriteTimeout.
func closeTelling(c *net.UnixConn, body []byte) {
	defer c.Close()
	deadline := time.Now().Add(refusalWriteTimeout)
	c.SetDeadline(deadline)
	if _, err := c.Write(wire.AppendFrame(nil, body)); err != nil {
		return
	}
	if c.CloseWrite() != nil {
		return
	}
	io.Copy(io.Discard, c)
}

func (d *daemon) handle(c *net.UnixConn) {
	defer d.wg.Done()
	defer func() {
		c.Close()
		d.mu.Lock()
		delete(d.conns, c)
		d.lastActivity = time.Now()
		d.mu.Unlock()
	}()
	replay, err := readFirstFrame(c, d.opts.HandshakeTimeout, d.opts.MaxFirstFrameBytes)
	if err != nil {
		d.log.Info("closed a connection during the handshake", "err", err)
		var tooLarge *firstFrameTooLargeError
		if errors.As(err, &tooLarge) {
			closeTelling(c, frameTooLargeAnswer(tooLarge.length, tooLarge.limit))
		}
		return
	}
	d.serve(&replayConn{UnixConn: c, pending: replay})
}

// serve hands one connection to the server. A panic there (a defect in its
// read loop, which no handler's recover covers) ends that connection only,
// with the stack in the log, never the daemon and its other sessions.
func (d *daemon) serve(c *replayConn) {
	defer func() {
		if p := recover(); p != nil {
			d.log.Error("a connection ended on a panic", "panic", p, "stack", string(debug.Stack()))
		}
	}()
	d.opts.Serve(d.serveCtx, c)
}

// drain ends every connection after Shutdown: their read sides are shut so
// each Serve sees EOF and flushes; after FlushTimeout the rest are closed.
func (d *daemon) drain() {
	if d.opts.Shutdown != nil {
		ctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
		d.opts.Shutdown(ctx)
		cancel()
	}
	d.mu.Lock()
	for c := range d.conns {
		c.CloseRead()
	}
	d.mu.Unlock()

	done := make(chan struct{})
	go func() {
		d.wg.Wait()
		close(done)
	}()
	timer := time.NewTimer(d.opts.FlushTimeout)
	defer timer.Stop()
	select {
	case <-done:
		return
	case <-timer.C:
	}
	d.mu.Lock()
	d.log.Warn("connections did not finish flushing; closing them", "count", len(d.conns), "flushTimeout", d.opts.FlushTimeout)
	for c := range d.conns {
		c.Close()
	}
	d.mu.Unlock()
	d.cancelServe()
	<-done
}
