package session

import "scv/runtime/provider"

// A steer adds a prompt to the running turn without cancelling it: the
// prompt waits on the turn until the next step boundary (after the model's
// current response and the tool calls it asked for), then joins the history
// as a user message, so the model reads it in the turn's next request. The
// queue, by contrast, starts a new turn. A turn that ends before that
// boundary (cancelled, failed) hands its waiting steers to the front of the
// queue (requeueSteersLocked): the user's words are never dropped while the
// session stays open.

// steers are a turn's prompts waiting for its next step boundary. They are
// guarded by the session's mutex. They count against the queue's limits
// (MaxQueueItems, MaxQueueBytes) together with the queue, so handing them
// to the queue never takes it past those limits.
type steers struct {
	waiting []steer
	bytes   int
	// closed is set once the turn will ask the model nothing more: a
	// steer then is refused (turn_not_found) rather than lost.
	closed bool
}

// steer is one waiting prompt and the id of the request that sent it (the
// submitter of its queue entry should the turn end first).
type steer struct {
	prompt    string
	submitter string
}

// Steer adds prompt to the running turn turnID; submitter is the
// requester's id. A turn that has ended, or is ending without another
// model request, is turn_not_found, so an editor can queue the prompt
// instead.
func (s *Session) Steer(turnID, prompt, submitter string) error {
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
	if err := s.logRoomLocked(); err != nil {
		return err // a steer keeps the turn asking the model: a new prompt
	}
	if err := s.roomLocked(len(prompt)); err != nil {
		return err
	}
	t.steers.waiting = append(t.steers.waiting, steer{prompt, submitter})
	t.steers.bytes += len(prompt)
	return nil
}

// applySteers moves t's waiting prompts into the history, each announced
// by turn.steered (whose record stores the message with it). It runs at a
// step boundary, before the turn's next model request. A steer whose
// event is refused (a full disk) stays waiting with those after it: the
// turn fails, and its end queues them (requeueSteersLocked), so a steer
// answered OK is never lost.
func (s *Session) applySteers(t *turn) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(t.steers.waiting) > 0 {
		w := t.steers.waiting[0]
		s.addHistoryLocked(provider.Message{Role: provider.RoleUser, Content: w.prompt})
		if err := s.emitLocked(TurnSteered{TurnID: t.id, Prompt: w.prompt}); err != nil {
			s.takeBackHistoryLocked()
			return err
		}
		t.steers.waiting = t.steers.waiting[1:]
		t.steers.bytes -= len(w.prompt)
	}
	t.steers.waiting = nil
	return nil
}

// finishUnlessSteered is asked when the model answered without tool calls:
// the turn ends there unless a steer is waiting, in which case it goes on
// so the model reads it. Once it says finish, later steers are refused.
func (s *Session) finishUnlessSteered(t *turn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(t.steers.waiting) > 0 {
		return false
	}
	t.steers.closed = true
	return true
}

// requeueSteersLocked puts the steers t never read at the front of the
// queue, in the order they came, as ordinary entries announced by
// queue.enqueued, so they run next as turns (unless the session is paused
// or stopping, like any queued prompt). It runs after t's terminal event.
// No limit check: the steers were counted against the queue's limits when
// they arrived. Their turns use t's file access, as the steers would have.
func (s *Session) requeueSteersLocked(t *turn) {
	waiting := t.steers.waiting
	t.steers.waiting, t.steers.bytes = nil, 0
	for i, w := range waiting {
		s.insertQueueLocked(i, QueueEntry{Prompt: w.prompt, Submitter: w.submitter, files: t.files})
		s.announceLocked(QueueEnqueued{s.queue[i], i})
	}
}
