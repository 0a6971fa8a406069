package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"scv/runtime/tools"
)

// AsTools wraps the tools offered right now for the session's registry.
// Call it again after a server's status changes: tools come and go.
func (m *Manager) AsTools() []tools.Tool {
	offered := m.Tools()
	out := make([]tools.Tool, len(offered))
	for i, t := range offered {
		out[i] = &adapter{m: m, t: t}
	}
	return out
}

// adapter is one MCP tool as a builtin-shaped tools.Tool. Its risk is
// always tools.RiskMCP, whatever annotations (readOnlyHint) the server
// gives: they are the server's claims, not scv's knowledge.
type adapter struct {
	m *Manager
	t Tool
}

func (a *adapter) Name() string { return a.t.Name }

func (a *adapter) Description() string {
	if a.t.Description == "" {
		return fmt.Sprintf("Tool %s of MCP server %s.", a.t.Remote, a.t.Server)
	}
	return a.t.Description
}

func (a *adapter) Parameters() json.RawMessage { return a.t.Schema }
func (a *adapter) Risk() tools.Risk            { return tools.RiskMCP }

// Trusted reports [mcp_servers.NAME] trust = true: the approval gate may
// run this tool without asking.
func (a *adapter) Trusted() bool { return a.t.Trusted }

// Server and RemoteName let an approval prompt or a per-tool grant name
// the server and the tool apart.
func (a *adapter) Server() string     { return a.t.Server }
func (a *adapter) RemoteName() string { return a.t.Remote }

// Summary shows the server, the tool and the arguments, pretty-printed,
// for the approval prompt.
func (a *adapter) Summary(args json.RawMessage) string {
	var pretty bytes.Buffer
	body := strings.TrimSpace(string(args))
	if body == "" {
		body = "{}"
	}
	if err := json.Indent(&pretty, []byte(body), "", "  "); err != nil {
		pretty.Reset()
		pretty.WriteString(body + "\n(not valid JSON)")
	}
	return strings.ToValidUTF8(fmt.Sprintf("MCP server: %s\ntool: %s\narguments:\n%s", a.t.Server, a.t.Remote, pretty.String()), "\uFFFD")
}

func (a *adapter) Run(ctx context.Context, args json.RawMessage) tools.Result {
	res, err := a.m.Call(ctx, a.t.Name, args)
	if err != nil {
		return tools.Result{Success: false, Output: strings.ToValidUTF8(err.Error(), "\uFFFD")}
	}
	return tools.Result{Success: !res.IsError, Output: res.Text, Truncated: res.Truncated}
}
