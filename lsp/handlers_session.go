package lsp

import (
	"context"
	"fmt"

	"scv/lsp/schema"
	"scv/runtime/session"
)

// sessionOf decodes params into p and finds the session it names.
func sessionOf(c *conn, req *incoming, p any, sid *string) (*session.Session, error) {
	if err := unmarshalParams(req.params, p); err != nil {
		return nil, err
	}
	if *sid == "" {
		return nil, invalidParams("params.sessionId is required")
	}
	return c.srv.sessions.Get(*sid)
}

// handleSessionStart runs off the read loop (see methodTable): loading the
// configuration, AGENTS.md and skills must not hold up the connection. Its
// reply is still queued before any event of the new session.
func handleSessionStart(ctx context.Context, c *conn, req *incoming) (any, error) {
	var p schema.SessionStartParams
	if err := unmarshalParams(req.params, &p); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, nil // cancelled before it began: call answers -32800, no session is made
	}
	servers, err := decodeMCPServers(p.MCPServers)
	if err != nil {
		return nil, err
	}
	_, snap, err := c.srv.sessions.Start(session.StartParams{
		Cwd: p.Cwd, Model: p.Model, Provider: p.Provider, BaseURL: p.BaseURL,
		ApprovalPolicy: p.ApprovalPolicy, NoTools: p.NoTools, MCPServers: servers, Flags: c.bridgeFlags(),
	}, c)
	if err != nil {
		return nil, err
	}
	return snap, nil
}

// handleSessionAttach loads a stored session that is not loaded yet.
func handleSessionAttach(_ context.Context, c *conn, req *incoming) (any, error) {
	var p schema.SessionAttachParams
	if err := unmarshalParams(req.params, &p); err != nil {
		return nil, err
	}
	if p.SessionID == "" {
		return nil, invalidParams("params.sessionId is required")
	}
	if p.Replay != "" && p.Replay != schema.ReplayFull {
		return nil, invalidParams(`params.replay must be "full" or absent, not "` + p.Replay + `"`)
	}
	s, err := c.srv.sessions.Load(p.SessionID, c.bridgeFlags())
	if err != nil {
		return nil, err
	}
	var a session.Attachment
	if p.Replay == schema.ReplayFull {
		a, err = s.AttachFull(c)
	} else {
		a, err = s.Attach(c, p.AfterSeq)
	}
	if err != nil {
		return nil, err
	}
	c.replayAfterReply(s.ID(), a)
	return a.Snapshot, nil
}

func handleSessionDetach(_ context.Context, c *conn, req *incoming) (any, error) {
	var p schema.SessionRef
	s, err := sessionOf(c, req, &p, &p.SessionID)
	if err != nil {
		return nil, err
	}
	s.Detach(c)
	return schema.Empty{}, nil
}

func handleSessionList(_ context.Context, c *conn, req *incoming) (any, error) {
	var p schema.SessionListParams
	if err := unmarshalParams(req.params, &p); err != nil {
		return nil, err
	}
	if p.Limit < 0 {
		return nil, invalidParams("params.limit must not be negative")
	}
	page, err := c.srv.sessions.ListSessions(session.ListOptions{Cwd: p.Cwd, Cursor: p.Cursor, Limit: p.Limit})
	if err != nil {
		return nil, err
	}
	return schema.SessionListResult{Sessions: page.Sessions, NextCursor: page.NextCursor}, nil
}

func handleSessionRename(_ context.Context, c *conn, req *incoming) (any, error) {
	var p schema.SessionRenameParams
	if err := unmarshalParams(req.params, &p); err != nil {
		return nil, err
	}
	if p.SessionID == "" {
		return nil, invalidParams("params.sessionId is required")
	}
	return schema.Empty{}, c.srv.sessions.Rename(p.SessionID, p.Title, c.bridgeFlags())
}

func handleSessionDelete(_ context.Context, c *conn, req *incoming) (any, error) {
	var p schema.SessionRef
	if err := unmarshalParams(req.params, &p); err != nil {
		return nil, err
	}
	if p.SessionID == "" {
		return nil, invalidParams("params.sessionId is required")
	}
	return schema.Empty{}, c.srv.sessions.Delete(p.SessionID)
}

func handleSessionFork(_ context.Context, c *conn, req *incoming) (any, error) {
	var p schema.SessionForkParams
	if err := unmarshalParams(req.params, &p); err != nil {
		return nil, err
	}
	if p.SessionID == "" {
		return nil, invalidParams("params.sessionId is required")
	}
	id, err := c.srv.sessions.Fork(p.SessionID, p.TurnID)
	if err != nil {
		return nil, err
	}
	return schema.SessionForkResult{SessionID: id}, nil
}

func handleSessionClose(_ context.Context, c *conn, req *incoming) (any, error) {
	var p schema.SessionRef
	if _, err := sessionOf(c, req, &p, &p.SessionID); err != nil {
		return nil, err
	}
	return schema.Empty{}, c.srv.sessions.Close(p.SessionID)
}

func handleSessionClear(_ context.Context, c *conn, req *incoming) (any, error) {
	var p schema.SessionRef
	s, err := sessionOf(c, req, &p, &p.SessionID)
	if err != nil {
		return nil, err
	}
	return schema.Empty{}, s.Clear()
}

func handleSessionPause(_ context.Context, c *conn, req *incoming) (any, error) {
	var p schema.SessionPauseParams
	s, err := sessionOf(c, req, &p, &p.SessionID)
	if err != nil {
		return nil, err
	}
	if p.Paused == nil {
		return nil, invalidParams("params.paused (boolean) is required")
	}
	paused, err := s.Pause(*p.Paused)
	return schema.SessionPauseResult{Paused: paused}, err
}

func handleTurnStart(_ context.Context, c *conn, req *incoming) (any, error) {
	var p schema.TurnStartParams
	s, err := sessionOf(c, req, &p, &p.SessionID)
	if err != nil {
		return nil, err
	}
	if p.Prompt == nil {
		return nil, invalidParams("params.prompt (string) is required")
	}
	if err := s.CheckPrompter(c.bridgeFlags()); err != nil {
		return nil, err
	}
	res, err := s.StartTurnWithFiles(*p.Prompt, p.Context, req.idText, c.filesFor(p.SessionID, p.FileAccess))
	if err != nil {
		return nil, err
	}
	return res, nil
}

func handleTurnCancel(_ context.Context, c *conn, req *incoming) (any, error) {
	var p schema.TurnCancelParams
	s, err := sessionOf(c, req, &p, &p.SessionID)
	if err != nil {
		return nil, err
	}
	if p.TurnID == "" {
		return nil, invalidParams("params.turnId is required")
	}
	return schema.Empty{}, s.CancelTurn(p.TurnID)
}

func handleQueueList(_ context.Context, c *conn, req *incoming) (any, error) {
	var p schema.SessionRef
	s, err := sessionOf(c, req, &p, &p.SessionID)
	if err != nil {
		return nil, err
	}
	return s.Queue(), nil
}

func queueTarget(c *conn, req *incoming, p *schema.QueueEditParams) (*session.Session, error) {
	s, err := sessionOf(c, req, p, &p.SessionID)
	if err != nil {
		return nil, err
	}
	if p.QueueID == "" {
		return nil, invalidParams("params.queueId is required")
	}
	if p.Revision == nil {
		return nil, invalidParams("params.revision (integer) is required")
	}
	return s, nil
}

func handleQueueUpdate(_ context.Context, c *conn, req *incoming) (any, error) {
	var p schema.QueueEditParams
	s, err := queueTarget(c, req, &p)
	if err != nil {
		return nil, err
	}
	if p.Prompt == nil {
		return nil, invalidParams("params.prompt (string) is required")
	}
	if err := s.CheckPrompter(c.bridgeFlags()); err != nil {
		return nil, err
	}
	entry, err := s.UpdateQueue(p.QueueID, *p.Revision, *p.Prompt)
	return schema.QueueUpdateResult{Entry: entry}, err
}

func handleQueueMove(_ context.Context, c *conn, req *incoming) (any, error) {
	var p schema.QueueEditParams
	s, err := queueTarget(c, req, &p)
	if err != nil {
		return nil, err
	}
	return s.MoveQueue(p.QueueID, *p.Revision, p.BeforeQueueID)
}

func handleQueueRemove(_ context.Context, c *conn, req *incoming) (any, error) {
	var p schema.QueueEditParams
	s, err := queueTarget(c, req, &p)
	if err != nil {
		return nil, err
	}
	return s.RemoveQueue(p.QueueID, *p.Revision)
}

func handleApprovalResolve(_ context.Context, c *conn, req *incoming) (any, error) {
	var p schema.ApprovalResolveParams
	s, err := sessionOf(c, req, &p, &p.SessionID)
	if err != nil {
		return nil, err
	}
	if p.ApprovalID == "" {
		return nil, invalidParams("params.approvalId is required")
	}
	if p.AllowRule == "" {
		return schema.ApprovalResolveResult{}, s.Resolve(p.ApprovalID, p.Decision)
	}
	if p.Decision != session.DecisionApprove {
		return nil, invalidParams(fmt.Sprintf("params.allowRule goes with decision approve only, not %q", p.Decision))
	}
	path, err := s.ResolveWithRule(p.ApprovalID, p.AllowRule)
	if err != nil {
		return nil, err
	}
	return schema.ApprovalResolveResult{RuleAddedTo: path}, nil
}
