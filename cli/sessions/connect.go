// Package sessions is the CLI of stored sessions: `scv sessions` (the
// table), `scv sessions rm` and `scv sessions export` (a Markdown
// transcript). It talks to the daemon when one runs, and otherwise to a
// server it runs in-process on the same $SCV_HOME, so the commands work
// without a daemon. Everything it prints that scv did not write itself
// passes through termsafe.
package sessions

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"sync"

	"scv/bridge"
	"scv/lsp"
	"scv/lsp/client"
	"scv/lsp/headless"
	"scv/lsp/schema"
)

// Conn is a session command's connection to a server, initialized.
type Conn struct {
	c *client.Client
	// Daemon is true when the daemon answers, false for the in-process server.
	Daemon bool
	stop   func() // ends the in-process server

	mu    sync.Mutex
	notes []client.Notification
}

// Connect reaches the daemon on socket or, when none runs, serves the
// options inProcess builds in this process, and performs the handshake as
// clientName. inProcess runs only without a daemon: a daemon answers with
// its own configuration, so this machine's need not hold a key or even
// load.
func Connect(ctx context.Context, socket string, inProcess func() (lsp.Options, error), clientName string) (*Conn, error) {
	conn := &Conn{stop: func() {}}
	var rwc net.Conn
	uc, err := bridge.Connect(socket)
	switch {
	case err == nil:
		rwc, conn.Daemon = uc, true
	case bridge.NoDaemon(err):
		server, err := inProcess()
		if err != nil {
			return nil, err
		}
		rwc, conn.stop = headless.Serve(context.Background(), server)
	default:
		return nil, err
	}
	conn.c = client.New(rwc, conn.record)
	raw, err := conn.c.Initialize(ctx, clientName)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if err := json.Unmarshal(raw, &schema.InitializeResult{}); err != nil {
		conn.Close()
		return nil, fmt.Errorf("decode the initialize result: %w", err)
	}
	return conn, nil
}

// Close ends the connection and the in-process server, if any.
func (c *Conn) Close() {
	c.c.Close()
	c.stop()
}

// Call sends one request.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	return c.c.Call(ctx, method, params, result)
}

// record keeps every notification: export reads the replay from them.
func (c *Conn) record(n client.Notification) {
	c.mu.Lock()
	c.notes = append(c.notes, n)
	c.mu.Unlock()
}

// take returns the notifications received so far and forgets them.
func (c *Conn) take() []client.Notification {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.notes
	c.notes = nil
	return out
}
