package bridge

import (
	"context"
	"encoding/json"
)

// DaemonStatus is the result of scv/daemon/status.
type DaemonStatus struct {
	Mode     string `json:"mode"`
	PID      int    `json:"pid"`
	Version  string `json:"version"`
	UptimeMs int64  `json:"uptimeMs"`
	Socket   string `json:"socket"`
	Clients  int    `json:"clients"`
	// Sessions is whatever the server reports (a count); scv status lists
	// the sessions themselves with scv/session/list.
	Sessions json.RawMessage `json:"sessions,omitempty"`
}

// SessionSummary is one entry of scv/session/list.
type SessionSummary struct {
	SessionID string          `json:"sessionId"`
	Cwd       string          `json:"cwd"`
	Model     string          `json:"model"`
	State     string          `json:"state"`
	Queued    int             `json:"queued"`
	Clients   int             `json:"clients"`
	CreatedAt json.RawMessage `json:"createdAt,omitempty"`
}

// Status asks the daemon for scv/daemon/status.
func (c *Client) Status(ctx context.Context) (DaemonStatus, error) {
	var st DaemonStatus
	err := c.Call(ctx, "scv/daemon/status", map[string]any{}, &st)
	return st, err
}

// Sessions asks the daemon for scv/session/list.
func (c *Client) Sessions(ctx context.Context) ([]SessionSummary, error) {
	var res struct {
		Sessions []SessionSummary `json:"sessions"`
	}
	err := c.Call(ctx, "scv/session/list", map[string]any{}, &res)
	return res.Sessions, err
}
