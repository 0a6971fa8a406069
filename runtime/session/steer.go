package session

import "scv/runtime/provider"

// A steer adds a prompt to the running turn without cancelling it: the
// prompt waits on the turn until the next step boundary (after the model's
// current response and the tool calls it asked for), then joins the history
// as a user message, so the model reads it in the turn's next request. The
// queue, by contrast, starts a new turn.

// steers are a turn's prompts waiting for its next step boundary. They are
// guarded by the session's mutex and bounded like the queue
// (MaxQueueItems, MaxQueueBytes).
type steers struct {
	prompts []string
	bytes   int
	// closed is set once the turn will ask the model nothing more: a
	// steer then is refused (turn_not_found) rather than lost.
	closed bool
}

// Steer adds prompt to the running turn turnID. A turn that has ended, or
// is ending without another model request, is turn_not_found, so an editor
// can queue the prompt instead.
func (s *Session) Steer(turnID, prompt string) error {
	if err := validatePrompt(prompt); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errorf(CodeSessionNotFound, "session %s is closed", s.id)
	}
	t := s.active
	if t == nil || t.id != turnID || t.steers.closed || t.ctx.Err() != nil {
		return errorf(CodeTurnNotFound, "turn %s is not running in session %s; queue the prompt instead", turnID, s.id)
	}
	if len(t.steers.prompts) >= MaxQueueItems {
		return errorf(CodeQueueLimit, "turn %s holds %d steered prompts already (maxQueueItems)", turnID, MaxQueueItems)
	}
	if t.steers.bytes+len(prompt) > MaxQueueBytes {
		return errorf(CodeQueueLimit, "the steered prompts of turn %s would exceed %d bytes (maxQueueBytes)", turnID, MaxQueueBytes)
	}
	t.steers.prompts = append(t.steers.prompts, prompt)
	t.steers.bytes += len(prompt)
	return nil
}

// applySteers moves t's waiting prompts into the history, each announced
// by turn.steered (whose record stores the message with it). It runs at a
// step boundary, before the turn's next model request.
func (s *Session) applySteers(t *turn) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	prompts := t.steers.prompts
	t.steers.prompts, t.steers.bytes = nil, 0
	for _, p := range prompts {
		s.addHistoryLocked(provider.Message{Role: provider.RoleUser, Content: p})
		if err := s.emitLocked(TurnSteered{TurnID: t.id, Prompt: p}); err != nil {
			return err
		}
	}
	return nil
}

// finishUnlessSteered is asked when the model answered without tool calls:
// the turn ends there unless a steer is waiting, in which case it goes on
// so the model reads it. Once it says finish, later steers are refused.
func (s *Session) finishUnlessSteered(t *turn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(t.steers.prompts) > 0 {
		return false
	}
	t.steers.closed = true
	return true
}
