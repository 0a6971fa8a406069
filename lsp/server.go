// Package lsp serves the scv protocol: JSON-RPC 2.0 with LSP framing, the
// LSP lifecycle and the scv/* methods, over any byte stream (stdio, a
// socket, an in-process pipe).
package lsp

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"time"

	"scv/internal/outbudget"
	"scv/lsp/schema"
	"scv/runtime/config"
	"scv/runtime/provider"
	"scv/runtime/session"
	"scv/runtime/store"
)

// ProtocolVersion is the major version of the scv protocol this server speaks.
const ProtocolVersion = schema.ProtocolVersion

// Modes of a server.
const (
	ModeStdio  = "stdio"
	ModeDaemon = "daemon"
)

// writerGrace bounds how long a closing connection keeps writing what it
// had already queued to a client that may have stopped reading.
const writerGrace = 3 * time.Second

// ErrExitWithoutShutdown is returned by ServeConn when the client sent
// `exit` before `shutdown`; `scv lsp` exits 1 then.
var ErrExitWithoutShutdown = errors.New("exit received before shutdown")

// Options configure a Server.
type Options struct {
	Mode     string // ModeStdio or ModeDaemon
	Version  string
	Socket   string // reported by scv/daemon/status
	Home     string // $SCV_HOME
	Flags    config.Overrides
	Protocol config.Protocol // wire limits
	// Response bounds a model response (provider.max_response_bytes and
	// max_tool_call_bytes of the user's config); zero fields take the
	// defaults. Advertised at initialize; a session's own config decides.
	Response       provider.Limits
	MaxConnections int // advertised in daemon mode
	// MaxSessions caps the open sessions (daemon.max_sessions); 0 means
	// config.DefaultMaxSessions.
	MaxSessions int
	Getenv      func(string) string
	// Store keeps the sessions on disk; nil keeps them in memory only.
	Store *store.Store
	// InitializeTimeout, when set, closes a connection that has not sent
	// initialize that long after it opened (the daemon's handshake bound).
	InitializeTimeout time.Duration
	// OnSessionClosed, when set, is told each session whose close has
	// finished (session.Options.OnClosed); it must not block.
	OnSessionClosed func(sessionID string)
}

// Server holds the sessions and serves connections to them.
type Server struct {
	opts     Options
	limits   session.Limits
	sessions *session.Manager
	started  time.Time

	// outbound is the byte budget every connection's queue is charged to.
	outbound *outbudget.Process

	mu    sync.Mutex
	conns map[*conn]struct{}
}

// NewServer returns a server ready to serve connections.
func NewServer(opts Options) *Server {
	if opts.Mode == "" {
		opts.Mode = ModeStdio
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	opts.Protocol = opts.Protocol.WithDefaults()
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = config.DefaultMaxSessions
	}
	p := opts.Protocol
	limits := session.Limits{
		MaxPromptBytes:          session.MaxPromptBytes,
		MaxQueueItems:           session.MaxQueueItems,
		MaxQueueBytes:           session.MaxQueueBytes,
		MaxClientFrameBytes:     p.MaxClientFrameBytes,
		MaxServerFrameBytes:     p.MaxServerFrameBytes,
		ReplayEvents:            session.ReplayEvents,
		ReplayBytes:             session.ReplayBytes,
		MaxInflightRequests:     p.MaxInflightRequests,
		OutboundQueueBytes:      p.OutboundQueueBytes,
		MaxProcessOutboundBytes: p.MaxProcessOutboundBytes,
		MaxSessions:             opts.MaxSessions,
		MaxOldTextBytes:         session.MaxOldTextBytes,
		MaxLogBytes:             store.MaxLogBytes,
	}.WithResponse(opts.Response)
	if opts.Store != nil {
		limits.MaxLogBytes = opts.Store.MaxLogBytes()
	}
	if opts.Mode == ModeDaemon {
		limits.MaxConnections = opts.MaxConnections
	}
	return &Server{
		opts:   opts,
		limits: limits,
		sessions: session.NewManager(session.Options{
			Home: opts.Home, Flags: opts.Flags, Getenv: opts.Getenv, Limits: limits, Store: opts.Store,
			OnClosed: opts.OnSessionClosed,
		}),
		started:  time.Now(),
		outbound: outbudget.NewProcess(p.MaxProcessOutboundBytes),
		conns:    map[*conn]struct{}{},
	}
}

// Sessions returns the session manager (the daemon closes idle sessions through it).
func (s *Server) Sessions() *session.Manager { return s.sessions }

// ServeConn serves one connection until the client leaves, sends `exit`,
// the framing breaks or ctx ends. In stdio mode the sessions belong to the
// connection, so their turns are cancelled when it ends; in daemon mode
// they live on.
func (s *Server) ServeConn(ctx context.Context, rwc io.ReadWriteCloser) error {
	c := newConn(ctx, s, rwc)
	s.mu.Lock()
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
	}()
	err := c.serve()
	if s.opts.Mode == ModeStdio {
		s.sessions.Shutdown()
	}
	return err
}

// Shutdown cancels every running turn and waits up to the grace period,
// so attached clients receive turn/cancelled before their connections close.
// No queued prompt starts afterwards.
func (s *Server) Shutdown() {
	s.sessions.Shutdown()
}

// Busy reports whether a connection is open or a turn is running.
func (s *Server) Busy() bool {
	return s.Connections() > 0 || s.sessions.Running() > 0
}

// Connections counts open connections.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}
