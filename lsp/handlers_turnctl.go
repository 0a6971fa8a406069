package lsp

import (
	"context"

	"scv/lsp/schema"
)

// Requests that change a live session without starting a turn: steer the
// running turn, switch the model or approval policy, list the models.

func handleTurnSteer(_ context.Context, c *conn, req *incoming) (any, error) {
	var p schema.TurnSteerParams
	s, err := sessionOf(c, req, &p, &p.SessionID)
	if err != nil {
		return nil, err
	}
	if p.TurnID == "" {
		return nil, invalidParams("params.turnId is required")
	}
	if p.Prompt == nil {
		return nil, invalidParams("params.prompt is required")
	}
	if err := s.CheckPrompter(c.bridgeFlags()); err != nil {
		return nil, err
	}
	return schema.Empty{}, s.Steer(p.TurnID, *p.Prompt, req.idText)
}

func handleSessionConfigure(_ context.Context, c *conn, req *incoming) (any, error) {
	var p schema.SessionConfigureParams
	s, err := sessionOf(c, req, &p, &p.SessionID)
	if err != nil {
		return nil, err
	}
	return s.Configure(p.Model, p.ApprovalPolicy)
}

// handleModelList runs off the read loop: it may wait for the provider's
// model list (at most provider.ModelListTimeout).
func handleModelList(ctx context.Context, c *conn, req *incoming) (any, error) {
	var p schema.SessionRef
	s, err := sessionOf(c, req, &p, &p.SessionID)
	if err != nil {
		return nil, err
	}
	return s.ListModels(ctx), nil
}
