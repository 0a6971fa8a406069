package session

import (
	"fmt"
	"strings"

	"scv/runtime/tools"
)

// validatePrompt applies the prompt rules shared by turn/start and queue/update.
func validatePrompt(prompt string) error {
	if strings.TrimSpace(prompt) == "" {
		return errorf(CodeInvalidPrompt, "prompt is empty")
	}
	if len(prompt) > MaxPromptBytes {
		return errorf(CodeInvalidPrompt, "prompt is %d bytes; the limit is %d (maxPromptBytes)", len(prompt), MaxPromptBytes)
	}
	return nil
}

// enqueueLocked appends a prompt to the queue and announces it.
func (s *Session) enqueueLocked(prompt string, att resolved, submitter string, files tools.FileAccess) (QueueEntry, int, error) {
	if len(s.queue) >= MaxQueueItems {
		return QueueEntry{}, 0, errorf(CodeQueueLimit, "the queue holds %d prompts already (maxQueueItems)", MaxQueueItems)
	}
	entry := QueueEntry{Revision: 1, Prompt: prompt, Submitter: submitter, attachments: att, files: files}
	if s.queueBytes+entry.bytes() > MaxQueueBytes {
		return QueueEntry{}, 0, errorf(CodeQueueLimit, "the queue would exceed %d bytes (maxQueueBytes)", MaxQueueBytes)
	}
	s.nextQueue++
	entry.QueueID = fmt.Sprintf("q%d", s.nextQueue)
	s.queue = append(s.queue, entry)
	s.queueBytes += entry.bytes()
	position := len(s.queue) - 1
	err := s.emitLocked(QueueEnqueued{entry, position})
	return entry, position, err
}

// findLocked returns the index of a queue entry whose revision matches.
func (s *Session) findLocked(queueID string, revision uint64) (int, error) {
	for i, e := range s.queue {
		if e.QueueID != queueID {
			continue
		}
		if e.Revision != revision {
			return -1, errorf(CodeQueueConflict, "queue entry %s is at revision %d, not %d", queueID, e.Revision, revision)
		}
		return i, nil
	}
	return -1, errorf(CodeQueueNotFound, "queue entry %s was not found in session %s", queueID, s.id)
}

// UpdateQueue replaces the prompt of a queued entry.
func (s *Session) UpdateQueue(queueID string, revision uint64, prompt string) (QueueEntry, error) {
	if err := validatePrompt(prompt); err != nil {
		return QueueEntry{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	i, err := s.findLocked(queueID, revision)
	if err != nil {
		return QueueEntry{}, err
	}
	entry := s.queue[i]
	grown := len(prompt) - len(entry.Prompt)
	if s.queueBytes+grown > MaxQueueBytes {
		return QueueEntry{}, errorf(CodeQueueLimit, "the queue would exceed %d bytes (maxQueueBytes)", MaxQueueBytes)
	}
	entry.Prompt = prompt
	entry.Revision++
	s.queue[i] = entry
	s.queueBytes += grown
	err = s.emitLocked(QueueUpdated{entry})
	return entry, err
}

// MoveResult is the answer to scv/queue/move.
type MoveResult struct {
	QueueID  string `json:"queueId"`
	Revision uint64 `json:"revision"`
	Position int    `json:"position"`
}

// MoveQueue puts an entry before another one, or at the end when
// beforeID is empty. Moving an entry before itself changes nothing.
func (s *Session) MoveQueue(queueID string, revision uint64, beforeID string) (MoveResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, err := s.findLocked(queueID, revision)
	if err != nil {
		return MoveResult{}, err
	}
	entry := s.queue[i]
	if beforeID == queueID {
		return MoveResult{QueueID: queueID, Revision: entry.Revision, Position: i}, nil
	}
	target := len(s.queue)
	if beforeID != "" {
		target = -1
		for j, e := range s.queue {
			if e.QueueID == beforeID {
				target = j
			}
		}
		if target < 0 {
			return MoveResult{}, errorf(CodeQueueNotFound, "queue entry %s (beforeQueueId) was not found in session %s", beforeID, s.id)
		}
	}
	rest := append(s.queue[:i:i], s.queue[i+1:]...)
	if target > i {
		target--
	}
	entry.Revision++
	s.queue = append(rest[:target:target], append([]QueueEntry{entry}, rest[target:]...)...)
	res := MoveResult{QueueID: queueID, Revision: entry.Revision, Position: target}
	return res, s.emitLocked(QueueMoved{res})
}

// RemoveResult is the answer to scv/queue/remove.
type RemoveResult struct {
	QueueID  string `json:"queueId"`
	Revision uint64 `json:"revision"`
}

// RemoveQueue drops a queued entry.
func (s *Session) RemoveQueue(queueID string, revision uint64) (RemoveResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, err := s.findLocked(queueID, revision)
	if err != nil {
		return RemoveResult{}, err
	}
	entry := s.queue[i]
	s.queue = append(s.queue[:i:i], s.queue[i+1:]...)
	s.queueBytes -= entry.bytes()
	res := RemoveResult{QueueID: queueID, Revision: entry.Revision}
	return res, s.emitLocked(QueueRemoved{res})
}

// Queue returns the queue and the paused flag.
func (s *Session) Queue() QueueState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queueStateLocked()
}

// startNextLocked starts the next queued prompt when the session is idle,
// not paused and not closed.
func (s *Session) startNextLocked() {
	// While the last turn's checkpoint is finished the queue waits: its
	// changes then go out before the next turn starts (finishCheckpoint
	// starts it).
	if s.active != nil || s.reverting || s.paused || s.closed || s.stopping || s.ckpt.settling != nil || len(s.queue) == 0 {
		return
	}
	entry := s.queue[0]
	s.queue = s.queue[1:]
	s.queueBytes -= entry.bytes()
	t := s.newTurnLocked(entry.Prompt, entry.attachments, entry.QueueID)
	t.files = entry.files
	_ = s.emitLocked(QueueDequeued{entry.QueueID, t.id})
	s.launchLocked(t)
}
