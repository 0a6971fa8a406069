package bridge

import (
	"go.lsp.dev/protocol"

	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"time"

	"scv/internal/outbudget"
	"scv/lsp/wire"
	"scv/runtime/config"
)

const (
	// MaxClientFrameBytes is the default limits.maxClientFrameBytes: the
	// largest frame accepted from a client.
	MaxClientFrameBytes = config.DefaultMaxClientFrameBytes
	// MaxServerFrameBytes is the default limits.maxServerFrameBytes: the
	// largest frame the server sends.
	MaxServerFrameBytes = config.DefaultMaxServerFrameBytes
	// EditorGoneFlush bounds how long, after the editor's input ends, the
	// forwarder keeps relaying the daemon's last answers before closing.
	EditorGoneFlush = 2 * time.Second
	// editorWriteGrace is how long the editor gets to take what is queued
	// for it when forwarding ends.
	editorWriteGrace = time.Second
	// ForwardBufferBytes bounds the frames queued for the editor; reading
	// from the daemon pauses beyond it. While one write to the editor is
	// under way the next frames gather, so they go out in one write.
	ForwardBufferBytes = 1 << 20
)

// Limits are the frame limits the forwarder enforces.
type Limits struct {
	MaxClientFrameBytes int // editor → daemon
	MaxServerFrameBytes int // daemon → editor
}

// DefaultLimits are the protocol's default limits.
func DefaultLimits() Limits {
	return Limits{MaxClientFrameBytes: MaxClientFrameBytes, MaxServerFrameBytes: MaxServerFrameBytes}
}

// LimitsFrom takes the frame limits from a configuration's [protocol]: the
// user's config file, which the daemon reads too.
func LimitsFrom(p config.Protocol) Limits {
	p = p.WithDefaults()
	return Limits{MaxClientFrameBytes: p.MaxClientFrameBytes, MaxServerFrameBytes: p.MaxServerFrameBytes}
}

// ForwardOptions configure Forward.
type ForwardOptions struct {
	Limits Limits
	// Flags are this `scv lsp`'s command-line flags; they reach the daemon
	// in the editor's initialize (see withFlags) and bind the sessions
	// started through this bridge.
	Flags config.Overrides
	// Outbound is the process's budget of bytes queued for editors
	// (protocol.max_process_outbound_bytes); nil gives the forwarder one
	// of its own, of ForwardBufferBytes.
	Outbound *outbudget.Process
}

var (
	// ErrDaemonLost: the daemon connection ended while the editor was still
	// there. The editor has been sent a window/showMessage error.
	ErrDaemonLost = errors.New("scv daemon connection lost")
	// ErrExitWithoutShutdown: the editor sent exit without shutdown, which
	// LSP says ends the server with a failure status.
	ErrExitWithoutShutdown = errors.New("exit without a preceding shutdown")
)

// Forward relays whole frames between an editor (editorIn/editorOut, usually
// stdin/stdout) and a daemon connection until one side ends.
//
//   - The editor's initialize carries opts.Flags to the daemon as
//     initializationOptions.scv.flags.
//   - An editor frame over limits.MaxClientFrameBytes is skipped and answered
//     by the bridge with -32600 (data.code "frame_too_large", id null); the
//     stream goes on. Invalid framing from the editor ends forwarding with an
//     error.
//   - A daemon reply over limits.MaxServerFrameBytes is replaced by an error
//     reply to the same request (data.code "response_limit"); any other
//     oversized daemon frame is dropped with a window/logMessage warning.
//   - When the editor's input ends, the daemon connection is half-closed,
//     its last answers are relayed for up to EditorGoneFlush, it is closed,
//     and Forward returns nil: the daemon keeps the sessions.
//   - When the daemon goes away, the editor receives a window/showMessage
//     error asking it to restart the server and Forward returns
//     ErrDaemonLost — unless the editor had sent exit, which returns nil
//     after shutdown and ErrExitWithoutShutdown without.
//
// Forward closes daemon. To stop a blocked read on editorIn it sets a past
// read deadline (os.Pipe, net.Conn, PollableStdio files) or closes it.
func Forward(ctx context.Context, editorIn io.Reader, editorOut io.Writer, daemon net.Conn, opts ForwardOptions) error {
	limits := opts.Limits
	if limits.MaxClientFrameBytes <= 0 || limits.MaxServerFrameBytes <= 0 {
		return fmt.Errorf("bridge: frame limits must be positive, got %+v", limits)
	}
	f := &forwarder{daemon: daemon, limits: limits, flags: opts.Flags,
		out: newEditorQueue(outbudget.NewAccount(opts.Outbound, ForwardBufferBytes))}
	writerDone := make(chan error, 1)
	upDone := make(chan error, 1)
	downDone := make(chan error, 1)
	go func() { writerDone <- f.out.run(editorOut) }()
	go func() { upDone <- f.up(editorIn) }()
	go func() { downDone <- f.down() }()

	var result error
	select {
	case err := <-upDone:
		upDone = nil
		result = f.editorEnded(ctx, err, &downDone)
	case err := <-downDone:
		downDone = nil
		result = f.daemonEnded(err)
	case <-writerDone: // the editor stopped taking output: it is gone
		writerDone = nil
		f.editorGone.Store(true)
	case <-ctx.Done():
		f.editorGone.Store(true)
		result = ctx.Err()
	}
	// Wake whatever still waits: on the daemon, on a full queue, on the editor.
	daemon.Close()
	f.out.close()
	if upDone != nil {
		interruptRead(editorIn)
		<-upDone
		resetReadDeadline(editorIn)
	}
	if downDone != nil {
		<-downDone
	}
	if writerDone != nil {
		// The writer delivers what is queued (the lost-daemon message
		// among it) unless the editor has stopped reading.
		timer := time.NewTimer(editorWriteGrace)
		select {
		case <-writerDone:
		case <-timer.C:
			interruptWrite(editorOut)
			<-writerDone
			resetWriteDeadline(editorOut)
		}
		timer.Stop()
	}
	return result
}

// editorEnded turns the end of the editor side into Forward's result. On
// the editor's EOF it lets the daemon's last answers through (bounded); on
// a failed write to the daemon it waits, bounded, for the daemon side to
// report how the daemon ended.
func (f *forwarder) editorEnded(ctx context.Context, err error, downDone *chan error) error {
	var daemonWrite *daemonWriteError
	var editorWrite *editorWriteError
	switch {
	case err == nil:
		f.editorGone.Store(true)
		if cw, ok := f.daemon.(interface{ CloseWrite() error }); !ok || cw.CloseWrite() != nil {
			return nil
		}
		f.waitDown(ctx, downDone)
		return nil
	case errors.As(err, &daemonWrite):
		if ended, down := f.waitDown(ctx, downDone); ended {
			return f.daemonEnded(down)
		}
		return f.daemonEnded(err)
	case errors.As(err, &editorWrite):
		f.editorGone.Store(true)
		return nil
	default:
		f.editorGone.Store(true)
		return err
	}
}

// waitDown waits up to EditorGoneFlush for the daemon side to end.
func (f *forwarder) waitDown(ctx context.Context, downDone *chan error) (ended bool, downErr error) {
	timer := time.NewTimer(EditorGoneFlush)
	defer timer.Stop()
	select {
	case err := <-*downDone:
		*downDone = nil
		return true, err
	case <-timer.C:
	case <-ctx.Done():
	}
	return false, nil
}

type forwarder struct {
	daemon net.Conn
	limits Limits
	flags  config.Overrides
	out    *editorQueue
	// initSent: the editor's initialize has gone by (read by up only).
	initSent bool

	editorGone   atomic.Bool
	exitSent     atomic.Bool
	shutdownSent atomic.Bool
}

// daemonWriteError: a frame could not be written to the daemon.
type daemonWriteError struct{ err error }

func (e *daemonWriteError) Error() string { return "write to the scv daemon: " + e.err.Error() }
func (e *daemonWriteError) Unwrap() error { return e.err }

// editorWriteError: a frame could not be written to the editor.
type editorWriteError struct{ err error }

func (e *editorWriteError) Error() string { return "write to the editor: " + e.err.Error() }
func (e *editorWriteError) Unwrap() error { return e.err }

// up relays editor frames to the daemon. It returns nil at the editor's
// EOF.
func (f *forwarder) up(editorIn io.Reader) error {
	r := wire.NewReader(editorIn, f.limits.MaxClientFrameBytes)
	var buf []byte
	for {
		body, err := r.Next() // copied on by AppendFrame below
		var tooLarge *wire.TooLargeError
		switch {
		case err == nil:
		case errors.As(err, &tooLarge):
			if err := f.toEditor(frameTooLargeAnswer(tooLarge.Length, tooLarge.Limit)); err != nil {
				return err
			}
			continue
		case errors.Is(err, io.EOF):
			return nil
		case errors.Is(err, wire.ErrBadFraming):
			return fmt.Errorf("editor input: %w", err)
		default:
			return fmt.Errorf("read from the editor: %w", err)
		}
		f.noteLifecycle(body)
		if !f.initSent && !f.flags.IsZero() {
			body, f.initSent = withFlags(body, f.flags)
		}
		buf = wire.AppendFrame(buf[:0], body)
		if _, err := f.daemon.Write(buf); err != nil {
			return &daemonWriteError{err}
		}
	}
}

// noteLifecycle remembers shutdown and exit so a daemon that closes the
// connection after exit is not reported as lost.
func (f *forwarder) noteLifecycle(body []byte) {
	if !bytes.Contains(body, []byte(`"shutdown"`)) && !bytes.Contains(body, []byte(`"exit"`)) {
		return
	}
	var msg struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &msg) != nil {
		return
	}
	switch msg.Method {
	case "shutdown":
		f.shutdownSent.Store(true)
	case "exit":
		f.exitSent.Store(true)
	}
}

// down relays daemon frames to the editor until the daemon connection ends;
// it returns that end's error (nil for EOF) or an *editorWriteError.
func (f *forwarder) down() error {
	r := wire.NewReader(f.daemon, f.limits.MaxServerFrameBytes)
	for {
		body, err := r.Next() // copied into the editor queue by toEditor
		var tooLarge *wire.TooLargeError
		switch {
		case err == nil:
		case errors.As(err, &tooLarge):
			// The daemon's limit is above ours (its configuration changed
			// since it started): a reply becomes an error reply so the
			// editor's request ends; anything else is dropped and logged.
			if id, ok := responseID(tooLarge.Head); ok {
				err = f.toEditor(responseLimitAnswer(id, tooLarge.Length, f.limits.MaxServerFrameBytes))
			} else {
				err = f.toEditor(logMessage(protocol.MessageTypeWarning, "scv bridge: dropped a "+tooLarge.Error()+" from the daemon (protocol.max_server_frame_bytes)"))
			}
			if err != nil {
				return err
			}
			continue
		case errors.Is(err, io.EOF):
			return nil
		default:
			return err
		}
		if err := f.toEditor(body); err != nil {
			return err
		}
	}
}

func (f *forwarder) toEditor(body []byte) error { return f.out.put(body) }

// daemonEnded turns the end of the daemon side into Forward's result.
func (f *forwarder) daemonEnded(err error) error {
	var editorWrite *editorWriteError
	switch {
	case errors.As(err, &editorWrite):
		return nil // the editor went away first
	case f.editorGone.Load():
		return nil
	case f.exitSent.Load():
		if f.shutdownSent.Load() {
			return nil
		}
		return ErrExitWithoutShutdown
	}
	// Sessions are stored on disk by the daemon: what a stopped daemon
	// lost is the turn it was running, not the sessions.
	text := fmt.Sprintf("scv: the connection to the scv daemon (%s) was lost. Restart the scv language server to reconnect: sessions are stored on disk, so attach to them again; a turn that was running when the daemon stopped is lost and comes back as interrupted, with its session paused.",
		f.daemon.RemoteAddr())
	f.toEditor(showMessage(protocol.MessageTypeError, text))
	if err == nil {
		return ErrDaemonLost
	}
	return fmt.Errorf("%w: %v", ErrDaemonLost, err)
}

// aLongTimeAgo returns a deadline that has passed: it wakes a blocked read
// or write.
func aLongTimeAgo() time.Time { return time.Unix(1, 0) }

func interruptRead(r io.Reader) {
	if d, ok := r.(interface{ SetReadDeadline(time.Time) error }); ok && d.SetReadDeadline(aLongTimeAgo()) == nil {
		return
	}
	if c, ok := r.(io.Closer); ok {
		c.Close()
	}
}

func resetReadDeadline(r io.Reader) {
	if d, ok := r.(interface{ SetReadDeadline(time.Time) error }); ok {
		d.SetReadDeadline(time.Time{})
	}
}

func interruptWrite(w io.Writer) {
	if d, ok := w.(interface{ SetWriteDeadline(time.Time) error }); ok && d.SetWriteDeadline(aLongTimeAgo()) == nil {
		return
	}
	if c, ok := w.(io.Closer); ok {
		c.Close()
	}
}

func resetWriteDeadline(w io.Writer) {
	if d, ok := w.(interface{ SetWriteDeadline(time.Time) error }); ok {
		d.SetWriteDeadline(time.Time{})
	}
}
