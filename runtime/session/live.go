package session

import (
	"context"

	"scv/runtime/provider"
	"scv/runtime/tools"
)

// This file holds what the turn loop does for issue 12's live events:
// reasoning deltas, a running tool's output, plan updates and usage.

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
		return s.emitTurn(PlanUpdated{t.id, steps})
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
	s.usage.InputTokens += u.InputTokens
	s.usage.OutputTokens += u.OutputTokens
	_ = s.emitLocked(SessionUsage{
		TurnID:           t.id,
		InputTokens:      s.usage.InputTokens,
		OutputTokens:     s.usage.OutputTokens,
		ContextTokens:    contextTokens,
		ContextMaxTokens: s.cfg.Context.MaxTokens,
	})
}
