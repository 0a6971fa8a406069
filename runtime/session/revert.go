package session

import (
	"fmt"

	"scv/runtime/checkpoint"
)

// RevertTurn undoes turn turnID and every later turn: each file they
// changed goes back to what it was before the first of them changed it,
// and the model's history is cut back to before turnID's prompt. A file
// changed since by someone else is a conflict: without force nothing is
// written, the conflicts are returned and the turns stay revertable;
// with force those files are restored too. A file that cannot be restored
// without reaching more than itself (through a symlink, over a directory
// holding files) is a conflict even with force. The turns are reverted
// only when no conflict is left. Refused while a turn runs. A revert cut
// short (a crash) can be run again to finish.
func (s *Session) RevertTurn(turnID string, force bool) (RevertResult, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return RevertResult{}, errorf(CodeSessionNotFound, "session %s is closed", s.id)
	}
	if s.active != nil || s.reverting {
		s.mu.Unlock()
		return RevertResult{}, errorf(CodeTurnActive, "a turn or a revert is running in session %s; wait for it or cancel it first", s.id)
	}
	ids, _, ok := s.marks.from(turnID)
	if !ok {
		s.mu.Unlock()
		return RevertResult{}, errorf(CodeTurnNotFound, "turn %s is not a turn of session %s that can be reverted", turnID, s.id)
	}
	s.reverting = true
	s.mu.Unlock()
	defer func() { // also after a panic, so the session is not stuck
		s.mu.Lock()
		defer s.mu.Unlock()
		s.reverting = false
		s.startNextLocked() // prompts queued meanwhile
	}()

	s.awaitCheckpoints() // the newest turn's after may still be on its way
	out, err := s.revertFiles(ids, force)

	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		return RevertResult{}, err
	}
	res := RevertResult{Reverted: out.Reverted, Conflicts: []RevertConflict{}}
	if res.Reverted == nil {
		res.Reverted = []string{}
	}
	for _, c := range out.Conflicts {
		res.Conflicts = append(res.Conflicts, RevertConflict{Path: c.Path, Diff: c.Diff})
	}
	if len(res.Conflicts) > 0 {
		return res, nil // the turns stay revertable: a revert again finishes them
	}
	s.cutTurnsLocked(turnID, ids)
	// The files are reverted already: the event goes out whatever the disk says.
	s.announceLocked(TurnReverted{TurnID: turnID, TurnIDs: ids})
	return res, nil
}

// revertFiles plans and runs the file side of a revert.
func (s *Session) revertFiles(ids []string, force bool) (checkpoint.Outcome, error) {
	repo, err := s.checkpointRepo(s.ctx, false)
	if err != nil {
		return checkpoint.Outcome{}, fmt.Errorf("open checkpoints: %w", err)
	}
	if repo == nil {
		return checkpoint.Outcome{}, errorf(CodeTurnNotFound, "session %s has no checkpoints to revert to", s.id)
	}
	targets, err := repo.Plan(s.ctx, ids)
	if err != nil {
		return checkpoint.Outcome{}, fmt.Errorf("plan the revert: %w", err)
	}
	if len(targets) == 0 {
		return checkpoint.Outcome{}, errorf(CodeTurnNotFound, "turn %s and the turns after it changed no files (or their checkpoints were dropped)", ids[0])
	}
	out, err := repo.Revert(s.ctx, targets, force, s.ckpt.revertHook)
	if err != nil {
		return out, fmt.Errorf("revert: %w", err)
	}
	return out, nil
}

// cutTurnsLocked removes reverted turns' messages from the history.
func (s *Session) cutTurnsLocked(turnID string, ids []string) {
	_, keep, _ := s.marks.from(turnID)
	if keep < len(s.history) {
		s.history = append(s.history[:0:0], s.history[:keep]...)
	}
	s.marks.revert(ids)
}
