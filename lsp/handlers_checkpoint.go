package lsp

import (
	"context"
	"path/filepath"

	"scv/lsp/schema"
)

// The checkpoint requests run off the read loop: they read and write the
// workspace and the session's shadow repository.

func handleTurnChanges(_ context.Context, c *conn, req *incoming) (any, error) {
	var p schema.TurnChangesParams
	if err := unmarshalParams(req.params, &p); err != nil {
		return nil, err
	}
	switch {
	case p.SessionID == "":
		return nil, invalidParams("params.sessionId is required")
	case p.TurnID == "":
		return nil, invalidParams("params.turnId is required")
	case p.Path != "" && (filepath.IsAbs(p.Path) || !filepath.IsLocal(p.Path)):
		return nil, invalidParams("params.path must be relative to the workspace, got " + p.Path)
	}
	s, err := c.srv.sessions.Load(p.SessionID)
	if err != nil {
		return nil, err
	}
	if p.Path != "" {
		p.Path = filepath.ToSlash(filepath.Clean(p.Path))
	}
	return s.TurnChanges(p.TurnID, p.Path)
}

func handleTurnRevert(_ context.Context, c *conn, req *incoming) (any, error) {
	var p schema.TurnRevertParams
	if err := unmarshalParams(req.params, &p); err != nil {
		return nil, err
	}
	switch {
	case p.SessionID == "":
		return nil, invalidParams("params.sessionId is required")
	case p.TurnID == "":
		return nil, invalidParams("params.turnId is required")
	}
	s, err := c.srv.sessions.Load(p.SessionID)
	if err != nil {
		return nil, err
	}
	return s.RevertTurn(p.TurnID, p.Force)
}
