package lsp

import (
	"context"

	"scv/runtime/session"
)

// sessionParams is the sessionId every scv/* request but three carries.
type sessionParams struct {
	SessionID string `json:"sessionId"`
}

// sessionOf decodes params into p (which embeds sessionParams) and finds
// the session it names.
func sessionOf(c *conn, req *incoming, p interface{ sid() string }) (*session.Session, error) {
	if err := unmarshalParams(req.params, p); err != nil {
		return nil, err
	}
	if p.sid() == "" {
		return nil, invalidParams("params.sessionId is required")
	}
	return c.srv.sessions.Get(p.sid())
}

func (p *sessionParams) sid() string { return p.SessionID }

type startParams struct {
	Cwd            string `json:"cwd"`
	Model          string `json:"model"`
	Provider       string `json:"provider"`
	BaseURL        string `json:"baseUrl"`
	ApprovalPolicy string `json:"approvalPolicy"`
	NoTools        bool   `json:"noTools"`
}

// handleSessionStart runs off the read loop (see methodTable): loading the
// configuration, AGENTS.md and skills must not hold up the connection. Its
// reply is still queued before any event of the new session.
func handleSessionStart(ctx context.Context, c *conn, req *incoming) (any, error) {
	var p startParams
	if err := unmarshalParams(req.params, &p); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, nil // cancelled before it began: call answers -32800, no session is made
	}
	c.mu.Lock()
	flags := c.flags
	c.mu.Unlock()
	_, err := c.srv.sessions.Start(session.StartParams{
		Cwd: p.Cwd, Model: p.Model, Provider: p.Provider, BaseURL: p.BaseURL,
		ApprovalPolicy: p.ApprovalPolicy, NoTools: p.NoTools, Flags: flags,
	}, c, func(snap session.Snapshot) { c.reply(req.id, snap, nil) })
	if err != nil {
		return nil, err
	}
	return nil, errReplied
}

type attachParams struct {
	sessionParams
	AfterSeq *uint64 `json:"afterSeq"`
}

func handleSessionAttach(_ context.Context, c *conn, req *incoming) (any, error) {
	var p attachParams
	s, err := sessionOf(c, req, &p)
	if err != nil {
		return nil, err
	}
	err = s.Attach(c, p.AfterSeq, func(snap session.Snapshot, replay []session.Event, gapFrom uint64) {
		c.reply(req.id, snap, nil)
		if gapFrom != 0 {
			c.notify(session.EvSessionGap, struct {
				SessionID         string `json:"sessionId"`
				FirstAvailableSeq uint64 `json:"firstAvailableSeq"`
			}{s.ID(), gapFrom})
		}
		for _, ev := range replay {
			// Replayed events are owed to this client: queue them whatever
			// the budget, like a reply.
			c.out.Push(ev.Frame)
		}
		c.mu.Lock()
		delete(c.lag, s.ID())
		c.mu.Unlock()
	})
	if err != nil {
		return nil, err
	}
	return nil, errReplied
}

func handleSessionDetach(_ context.Context, c *conn, req *incoming) (any, error) {
	var p sessionParams
	s, err := sessionOf(c, req, &p)
	if err != nil {
		return nil, err
	}
	s.Detach(c)
	return struct{}{}, nil
}

func handleSessionList(_ context.Context, c *conn, _ *incoming) (any, error) {
	return struct {
		Sessions []session.Summary `json:"sessions"`
	}{c.srv.sessions.List()}, nil
}

func handleSessionClose(_ context.Context, c *conn, req *incoming) (any, error) {
	var p sessionParams
	if _, err := sessionOf(c, req, &p); err != nil {
		return nil, err
	}
	return struct{}{}, c.srv.sessions.Close(p.SessionID)
}

func handleSessionClear(_ context.Context, c *conn, req *incoming) (any, error) {
	var p sessionParams
	s, err := sessionOf(c, req, &p)
	if err != nil {
		return nil, err
	}
	return struct{}{}, s.Clear()
}

type pauseParams struct {
	sessionParams
	Paused *bool `json:"paused"`
}

func handleSessionPause(_ context.Context, c *conn, req *incoming) (any, error) {
	var p pauseParams
	s, err := sessionOf(c, req, &p)
	if err != nil {
		return nil, err
	}
	if p.Paused == nil {
		return nil, invalidParams("params.paused (boolean) is required")
	}
	paused, err := s.Pause(*p.Paused)
	return struct {
		Paused bool `json:"paused"`
	}{paused}, err
}

type turnStartParams struct {
	sessionParams
	Prompt  *string               `json:"prompt"`
	Context []session.ContextItem `json:"context"`
}

func handleTurnStart(_ context.Context, c *conn, req *incoming) (any, error) {
	var p turnStartParams
	s, err := sessionOf(c, req, &p)
	if err != nil {
		return nil, err
	}
	if p.Prompt == nil {
		return nil, invalidParams("params.prompt (string) is required")
	}
	_, err = s.StartTurn(*p.Prompt, p.Context, req.idText, func(res session.TurnStart) { c.reply(req.id, res, nil) })
	if err != nil {
		return nil, err
	}
	return nil, errReplied
}

type turnCancelParams struct {
	sessionParams
	TurnID string `json:"turnId"`
}

func handleTurnCancel(_ context.Context, c *conn, req *incoming) (any, error) {
	var p turnCancelParams
	s, err := sessionOf(c, req, &p)
	if err != nil {
		return nil, err
	}
	if p.TurnID == "" {
		return nil, invalidParams("params.turnId is required")
	}
	return struct{}{}, s.CancelTurn(p.TurnID)
}

func handleQueueList(_ context.Context, c *conn, req *incoming) (any, error) {
	var p sessionParams
	s, err := sessionOf(c, req, &p)
	if err != nil {
		return nil, err
	}
	return s.Queue(), nil
}

type queueParams struct {
	sessionParams
	QueueID       string  `json:"queueId"`
	Revision      *uint64 `json:"revision"`
	Prompt        *string `json:"prompt"`
	BeforeQueueID string  `json:"beforeQueueId"`
}

func queueTarget(c *conn, req *incoming, p *queueParams) (*session.Session, error) {
	s, err := sessionOf(c, req, p)
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
	var p queueParams
	s, err := queueTarget(c, req, &p)
	if err != nil {
		return nil, err
	}
	if p.Prompt == nil {
		return nil, invalidParams("params.prompt (string) is required")
	}
	entry, err := s.UpdateQueue(p.QueueID, *p.Revision, *p.Prompt)
	return struct {
		Entry session.QueueEntry `json:"entry"`
	}{entry}, err
}

func handleQueueMove(_ context.Context, c *conn, req *incoming) (any, error) {
	var p queueParams
	s, err := queueTarget(c, req, &p)
	if err != nil {
		return nil, err
	}
	return s.MoveQueue(p.QueueID, *p.Revision, p.BeforeQueueID)
}

func handleQueueRemove(_ context.Context, c *conn, req *incoming) (any, error) {
	var p queueParams
	s, err := queueTarget(c, req, &p)
	if err != nil {
		return nil, err
	}
	return s.RemoveQueue(p.QueueID, *p.Revision)
}

type resolveParams struct {
	sessionParams
	ApprovalID string `json:"approvalId"`
	Decision   string `json:"decision"`
}

func handleApprovalResolve(_ context.Context, c *conn, req *incoming) (any, error) {
	var p resolveParams
	s, err := sessionOf(c, req, &p)
	if err != nil {
		return nil, err
	}
	if p.ApprovalID == "" {
		return nil, invalidParams("params.approvalId is required")
	}
	return struct{}{}, s.Resolve(p.ApprovalID, p.Decision)
}
