package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrUnknownTool is the error of a call naming no configured server.
var ErrUnknownTool = errors.New("unknown MCP tool")

// Call runs the tool the model knows as name (mcp__SERVER__TOOL) with
// argsJSON, a JSON object. A tool that reports isError comes back as a
// Result with IsError; an error means the call did not complete (the
// server is down, the call timed out after tool_timeout_sec and was
// cancelled on the server, ctx ended, or the connection broke) and says so
// in words fit for the model. Cancelling ctx cancels the call on the
// server.
func (m *Manager) Call(ctx context.Context, name string, argsJSON json.RawMessage) (Result, error) {
	s := m.routes.lookup(name)
	if s == nil {
		return Result{}, fmt.Errorf("%w %q", ErrUnknownTool, name)
	}
	args := bytes.TrimSpace(argsJSON)
	if len(args) == 0 {
		args = []byte("{}")
	}
	if !json.Valid(args) || args[0] != '{' {
		return Result{}, fmt.Errorf("%s: the arguments must be a JSON object", name)
	}
	// A server restarting after an exit is waited for, within ctx.
	if err := s.settle(ctx); err != nil {
		return Result{}, fmt.Errorf("%s: cancelled while server %s was starting", name, s.name)
	}
	s.mu.Lock()
	state, reason, c := s.state, s.reason, s.conn
	var tool *Tool
	for i := range s.tools {
		if s.tools[i].Name == name {
			tool = &s.tools[i]
			break
		}
	}
	var remote string
	if tool != nil {
		remote = tool.Remote
	}
	s.mu.Unlock()
	if state != StateReady || c == nil {
		msg := fmt.Sprintf("%s is not available: MCP server %s is %s", name, s.name, state)
		if reason != "" {
			msg += " (" + reason + ")"
		}
		return Result{}, errors.New(msg)
	}
	if tool == nil {
		return Result{}, fmt.Errorf("%w %q: server %s offers no such tool", ErrUnknownTool, name, s.name)
	}
	callCtx, cancel := context.WithTimeout(ctx, s.toolTimeout())
	defer cancel()
	res, err := c.cs.CallTool(callCtx, &sdk.CallToolParams{Name: remote, Arguments: json.RawMessage(args)})
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return Result{}, fmt.Errorf("%s: cancelled (the server was told)", name)
		case errors.Is(callCtx.Err(), context.DeadlineExceeded):
			return Result{}, fmt.Errorf("%s: timed out after tool_timeout_sec (%gs); the call was cancelled on the server", name, s.cfg.ToolTimeoutSec)
		default:
			return Result{}, fmt.Errorf("%s: %v", name, err)
		}
	}
	return resultText(res, m.opts.MaxOutputBytes), nil
}
