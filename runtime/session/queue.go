package session

import (
	"fmt"
	"slices"
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
	entry := QueueEntry{Prompt: prompt, Submitter: submitter, attachments: att, files: files}
	if err := s.roomLocked(entry.bytes()); err != nil {
		return QueueEntry{}, 0, err
	}
	position := len(s.queue)
	undo := s.insertQueueLocked(position, entry)
	entry = s.queue[position]
	if err := s.undoOnRefusal(QueueEnqueued{entry, position}, undo); err != nil {
		return QueueEntry{}, 0, err
	}
	return entry, position, nil
}

// insertQueueLocked numbers entry and puts it at position; the caller has
// checked the limits and announces it. It returns what takes it back.
func (s *Session) insertQueueLocked(position int, entry QueueEntry) (undo func()) {
	s.nextQueue++
	entry.QueueID = fmt.Sprintf("q%d", s.nextQueue)
	entry.Revision = 1
	s.queue = slices.Insert(s.queue, position, entry)
	s.queueBytes += entry.bytes()
	return func() {
		s.nextQueue--
		s.queue = slices.Delete(s.queue, position, position+1)
		s.queueBytes -= entry.bytes()
	}
}

// waitingLocked counts the prompts waiting to be read: the queue's and
// the steers of the running turn, which a turn that ends before reading
// them hands to the queue. The queue's limits bound both together.
func (s *Session) waitingLocked() (items, bytes int) {
	items, bytes = len(s.queue), s.queueBytes
	if s.active != nil {
		items += len(s.active.steers.waiting)
		bytes += s.active.steers.bytes
	}
	return items, bytes
}

// roomLocked refuses one more waiting prompt of n bytes past the limits.
func (s *Session) roomLocked(n int) error {
	if items, _ := s.waitingLocked(); items >= MaxQueueItems {
		return errorf(CodeQueueLimit, "%d prompts are waiting already, queued or steered (maxQueueItems)", items)
	}
	return s.roomBytesLocked(n)
}

// roomBytesLocked refuses n more bytes of waiting prompts past MaxQueueBytes.
func (s *Session) roomBytesLocked(n int) error {
	if _, bytes := s.waitingLocked(); bytes+n > MaxQueueBytes {
		return errorf(CodeQueueLimit, "the prompts waiting, queued or steered, would exceed %d bytes (maxQueueBytes)", MaxQueueBytes)
	}
	return nil
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
	if grown > 0 {
		if err := s.roomBytesLocked(grown); err != nil {
			return QueueEntry{}, err
		}
	}
	old := s.queue[i]
	entry.Prompt = prompt
	entry.Revision++
	s.queue[i] = entry
	s.queueBytes += grown
	if err := s.undoOnRefusal(QueueUpdated{entry}, func() { s.queue[i] = old; s.queueBytes -= grown }); err != nil {
		return QueueEntry{}, err
	}
	return entry, nil
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
	old := s.queue // rest and the new queue are copies: old is intact
	s.queue = append(rest[:target:target], append([]QueueEntry{entry}, rest[target:]...)...)
	res := MoveResult{QueueID: queueID, Revision: entry.Revision, Position: target}
	if err := s.undoOnRefusal(QueueMoved{res}, func() { s.queue = old }); err != nil {
		return MoveResult{}, err
	}
	return res, nil
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
	entry, old := s.queue[i], s.queue
	s.queue = append(s.queue[:i:i], s.queue[i+1:]...) // a copy: old is intact
	s.queueBytes -= entry.bytes()
	res := RemoveResult{QueueID: queueID, Revision: entry.Revision}
	if err := s.undoOnRefusal(QueueRemoved{res}, func() { s.queue = old; s.queueBytes += entry.bytes() }); err != nil {
		return RemoveResult{}, err
	}
	return res, nil
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
	s.announceLocked(QueueDequeued{entry.QueueID, t.id})
	_ = s.launchLocked(t, true)
}
