package bridge

import (
	"context"
	"encoding/json"
	"net"

	"scv/lsp/client"
	"scv/lsp/schema"
)

// Client is the JSON-RPC client the CLI commands and tests use to talk to
// the daemon; it is the project's one client (scv/lsp/client).
type Client = client.Client

// RPCError is a JSON-RPC error answer.
type RPCError = client.Error

// ErrConnectionClosed means the daemon hung up.
var ErrConnectionClosed = client.ErrConnectionClosed

// NewClient starts a client on conn; onNotify (may be nil) receives every
// notification in order on the client's reading goroutine and must not
// wait for a Call of the same client.
func NewClient(conn net.Conn, onNotify func(method string, params json.RawMessage)) *Client {
	var notify func(client.Notification)
	if onNotify != nil {
		notify = func(n client.Notification) { onNotify(n.Method, n.Params) }
	}
	return client.New(conn, notify)
}

// DaemonStatus is the result of scv/daemon/status.
type DaemonStatus = schema.DaemonStatus

// SessionSummary is one entry of scv/session/list.
type SessionSummary = schema.Summary

// Status asks the daemon for scv/daemon/status.
func Status(ctx context.Context, c *Client) (DaemonStatus, error) {
	var st DaemonStatus
	err := c.Call(ctx, schema.MethodDaemonStatus, schema.Empty{}, &st)
	return st, err
}

// Sessions asks the daemon for scv/session/list.
func Sessions(ctx context.Context, c *Client) ([]SessionSummary, error) {
	var res schema.SessionListResult
	err := c.Call(ctx, schema.MethodSessionList, schema.Empty{}, &res)
	return res.Sessions, err
}
