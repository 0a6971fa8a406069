package lsp

import (
	"context"
	"fmt"
	"os"
	"time"

	"go.lsp.dev/jsonrpc2"

	"scv/runtime/config"
	"scv/runtime/session"
)

type initializeParams struct {
	InitializationOptions *struct {
		SCV *struct {
			ProtocolVersion *int `json:"protocolVersion"`
			// Flags are the command-line flags of a forwarding `scv lsp`,
			// which it adds to the editor's initialize: they bind every
			// session started on this connection.
			Flags *config.Overrides `json:"flags"`
		} `json:"scv"`
	} `json:"initializationOptions"`
}

// Capabilities is capabilities.experimental.scv of the initialize result.
type Capabilities struct {
	ProtocolVersion  int            `json:"protocolVersion"`
	Methods          []string       `json:"methods"`
	Notifications    []string       `json:"notifications"`
	Limits           session.Limits `json:"limits"`
	ApprovalPolicies []string       `json:"approvalPolicies"`
	Daemon           bool           `json:"daemon"`
}

// ServerInfo names the server in the initialize result.
type ServerInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// InitializeResult is the part of the initialize result scv defines.
type InitializeResult struct {
	Capabilities struct {
		Experimental struct {
			SCV Capabilities `json:"scv"`
		} `json:"experimental"`
	} `json:"capabilities"`
	ServerInfo ServerInfo `json:"serverInfo"`
}

func handleInitialize(_ context.Context, c *conn, req *incoming) (any, error) {
	var p initializeParams
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
	res.ServerInfo = ServerInfo{Name: "scv", Version: c.srv.opts.Version}
	res.Capabilities.Experimental.SCV = Capabilities{
		ProtocolVersion:  ProtocolVersion,
		Methods:          AdvertisedMethods(),
		Notifications:    session.Notifications,
		Limits:           c.srv.limits,
		ApprovalPolicies: session.ApprovalPolicies,
		Daemon:           c.srv.opts.Mode == ModeDaemon,
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
type DaemonStatus struct {
	Mode     string            `json:"mode"`
	PID      int               `json:"pid"`
	Version  string            `json:"version"`
	UptimeMs int64             `json:"uptimeMs"`
	Socket   string            `json:"socket"`
	Clients  int               `json:"clients"`
	Sessions []session.Summary `json:"sessions"`
}

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
