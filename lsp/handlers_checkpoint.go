package lsp

import (
	"context"
	"path/filepath"

	"scv/lsp/schema"
	"scv/runtime/session"
)

// The checkpoint requests run off the read loop: they read and write the
// workspace and the session's shadow repository.

// storedTurn decodes the params of a request naming a session and a turn
// and loads that session; unlike sessionOf, a session only on disk is
// loaded, so a turn can be reviewed and undone after a restart.
func storedTurn(c *conn, req *incoming, p any, sid, tid *string) (*session.Session, error) {
	if err := unmarshalParams(req.params, p); err != nil {
		return nil, err
	}
	switch {
	case *sid == "":
		return nil, invalidParams("params.sessionId is required")
	case *tid == "":
		return nil, invalidParams("params.turnId is required")
	}
	return c.srv.sessions.Load(*sid, c.bridgeFlags())
}

func handleTurnChanges(_ context.Context, c *conn, req *incoming) (any, error) {
	var p schema.TurnChangesParams
	s, err := storedTurn(c, req, &p, &p.SessionID, &p.TurnID)
	if err != nil {
		return nil, err
	}
	if p.Path != "" {
		if filepath.IsAbs(p.Path) || !filepath.IsLocal(p.Path) {
			return nil, invalidParams("params.path must be relative to the workspace, got " + p.Path)
		}
		p.Path = filepath.ToSlash(filepath.Clean(p.Path))
	}
	return s.TurnChanges(p.TurnID, p.Path)
}

func handleTurnRevert(_ context.Context, c *conn, req *incoming) (any, error) {
	var p schema.TurnRevertParams
	s, err := storedTurn(c, req, &p, &p.SessionID, &p.TurnID)
	if err != nil {
		return nil, err
	}
	return s.RevertTurn(p.TurnID, p.Force)
}
