package session

import (
	"context"

	"scv/runtime/provider"
	"scv/runtime/tools"
)

// This file holds what the turn loop does for issue 12's live events:
// reasoning deltas, a running tool's output, plan updates and usage.

// liveState is what a session keeps of its usage and plan events.
type liveState struct {
	totals    provider.Usage // the session's token totals
	lastUsage *SessionUsage  // the last usage event
	plan      *PlanUpdated   // the last plan; a clear drops it
}

// reasoningSink is where a model call's reasoning text goes: a delta
// event per piece. The text never joins the history sent to the model.
func (s *Session) reasoningSink(t *turn) func(string) error {
	return func(text string) error { return s.emitTurn(AssistantReasoning{t.id, text}) }
}

// toolContext is the context a tool call of t runs under: the session's
// file access, the live output of shell and the plan of update_plan.
func (s *Session) toolContext(t *turn, call provider.ToolCall) context.Context {
	ctx := tools.WithFileAccess(t.ctx, s.fileAccessFor(t))
	ctx = tools.WithOutput(ctx, func(chunk string) {
		// A chunk too large for a frame is dropped: the result has it.
		_ = s.emitTurn(ToolOutput{t.id, call.ID, chunk})
	})
	return withPlan(ctx, func(steps []PlanStep) error {
		s.mu.Lock()
		defer s.mu.Unlock()
		plan := PlanUpdated{t.id, steps}
		if err := s.emitLocked(plan); err != nil {
			return err
		}
		s.live.plan = &plan
		return nil
	})
}

// reportUsage adds a model call's tokens to the turn's and the session's
// totals and emits them. A provider that reports no prompt size gets the
// session's own estimate of the request, as compaction counts it.
func (s *Session) reportUsage(t *turn, req provider.Request, u provider.Usage) {
	t.usage.InputTokens += u.InputTokens
	t.usage.OutputTokens += u.OutputTokens
	contextTokens := u.InputTokens
	if contextTokens == 0 {
		for _, m := range req.Messages {
			contextTokens += estimateTokens(m)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.live.totals.InputTokens += u.InputTokens
	s.live.totals.OutputTokens += u.OutputTokens
	usage := SessionUsage{
		TurnID:           t.id,
		InputTokens:      s.live.totals.InputTokens,
		OutputTokens:     s.live.totals.OutputTokens,
		ContextTokens:    contextTokens,
		ContextMaxTokens: s.cfg.Context.MaxTokens,
	}
	if s.emitLocked(usage) == nil {
		s.live.lastUsage = &usage
	}
}
