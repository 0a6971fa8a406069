package lsp

import (
	"context"
	"fmt"
	"os"
	"time"

	"go.lsp.dev/jsonrpc2"

	"scv/lsp/schema"
	"scv/runtime/approvals"
	"scv/runtime/config"
	"scv/runtime/provider"
	"scv/runtime/session"
)

// Capabilities is capabilities.experimental.scv of the initialize result.
type Capabilities = schema.Capabilities

// InitializeResult is the part of the initialize result scv defines.
type InitializeResult = schema.InitializeResult

func handleInitialize(_ context.Context, c *conn, req *incoming) (any, error) {
	var p schema.InitializeParams
	if err := unmarshalParams(req.params, &p); err != nil {
		return nil, err
	}
	if o := p.InitializationOptions; o != nil && o.SCV != nil && o.SCV.ProtocolVersion != nil && *o.SCV.ProtocolVersion != ProtocolVersion {
		return nil, withData(codeInvalidRequest, dataVersionMismatch,
			fmt.Sprintf("the client speaks scv protocol %d; this server speaks %d", *o.SCV.ProtocolVersion, ProtocolVersion))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.initialized {
		return nil, jsonrpc2.NewError(codeInvalidRequest, "initialize was already received on this connection")
	}
	c.initialized = true
	if o := p.InitializationOptions; o != nil && o.SCV != nil && o.SCV.Flags != nil {
		c.flags = *o.SCV.Flags
	}
	var res InitializeResult
	res.ServerInfo = schema.ServerInfo{Name: "scv", Version: c.srv.opts.Version}
	res.Capabilities.Experimental.SCV = Capabilities{
		ProtocolVersion:   ProtocolVersion,
		Methods:           AdvertisedMethods(),
		Notifications:     schema.Notifications,
		Limits:            c.srv.limits,
		ApprovalPolicies:  session.ApprovalPolicies,
		ApprovalRuleKinds: []string{approvals.KindShell, approvals.KindEdit},
		ModelList: schema.ModelListLimits{
			TimeoutMs:    provider.ModelListTimeout.Milliseconds(),
			CacheSeconds: int64(provider.ModelListTTL.Seconds()),
		},
		Daemon:               c.srv.opts.Mode == ModeDaemon,
		ClientRequests:       schema.ClientMethods,
		FileRequestTimeoutMs: FileRequestTimeout.Milliseconds(),
	}
	return res, nil
}

func handleShutdown(_ context.Context, c *conn, _ *incoming) (any, error) {
	c.mu.Lock()
	c.shutdown = true
	c.mu.Unlock()
	// In the daemon, sessions outlive the windows that watch them, so a
	// closing window cancels nothing.
	if c.srv.opts.Mode == ModeStdio {
		c.srv.sessions.Shutdown()
	}
	return nil, nil
}

// DaemonStatus is the result of scv/daemon/status.
type DaemonStatus = schema.DaemonStatus

func handleDaemonStatus(_ context.Context, c *conn, _ *incoming) (any, error) {
	return DaemonStatus{
		Mode:     c.srv.opts.Mode,
		PID:      os.Getpid(),
		Version:  c.srv.opts.Version,
		UptimeMs: time.Since(c.srv.started).Milliseconds(),
		Socket:   c.srv.opts.Socket,
		Clients:  c.srv.Connections(),
		Sessions: c.srv.sessions.List(),
	}, nil
}

// bridgeFlags are the flags of the forwarding bridge this connection came
// through (initializationOptions.scv.flags; none for an editor's own
// connection). They tighten the ceiling of every session the connection
// starts or loads, and a prompt it sends to a session already live is
// refused when they would not hold for it (session.CheckPrompter).
func (c *conn) bridgeFlags() config.Overrides {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.flags
}
