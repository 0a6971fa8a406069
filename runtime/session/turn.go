package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"scv/runtime/checkpoint"
	"scv/runtime/provider"
	"scv/runtime/store"
	"scv/runtime/tools"
)

// turn is one prompt being answered.
type turn struct {
	id          string
	prompt      string
	attachments resolved
	queueID     string
	ctx         context.Context
	cancel      context.CancelFunc
	steps       int
	tools       *tools.Registry // the tools of the current model step
	usage       provider.Usage
	steers      steers // guarded by the session's mutex
	// files is the file access of the window whose prompt started the
	// turn (nil: the session's, see SetFileAccess).
	files      tools.FileAccess
	ckpt       *checkpoint.Turn // taken before the turn's first change
	ckptFailed bool             // no checkpoint could be taken: do not retry each call
	ckptUsed   bool             // a tool that may change the workspace ran: Finish the checkpoint
	// ckptAfter is closed when the checkpoint work of the turns before
	// this one is done: its own snapshot waits for it (nil: none pending).
	ckptAfter <-chan struct{}
}

// TurnStart is the answer to scv/turn/start: a started turn or a queued entry.
type TurnStart struct {
	Status   string      `json:"status"`
	TurnID   string      `json:"turnId,omitempty"`
	Entry    *QueueEntry `json:"entry,omitempty"`
	Position *int        `json:"position,omitempty"`
}

// StartTurn starts a turn, or queues the prompt while one runs. submitter
// is the requester's id, recorded on a queued entry.
func (s *Session) StartTurn(prompt string, ctxItems []ContextItem, submitter string) (TurnStart, error) {
	return s.StartTurnWithFiles(prompt, ctxItems, submitter, nil)
}

// StartTurnWithFiles is StartTurn for a window that serves the files
// itself: the file tools of the prompt's turn, whenever it runs, go
// through files (nil: the session's file access, else the disk).
func (s *Session) StartTurnWithFiles(prompt string, ctxItems []ContextItem, submitter string, files tools.FileAccess) (TurnStart, error) {
	if err := validatePrompt(prompt); err != nil {
		return TurnStart{}, err
	}
	attachments, err := s.resolveContext(ctxItems)
	if err != nil {
		return TurnStart{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return TurnStart{}, errorf(CodeSessionNotFound, "session %s is closed", s.id)
	}
	if s.stopping {
		return TurnStart{}, errorf(CodeUnsupported, "the scv daemon is shutting down; the prompt was not started")
	}
	if err := s.logRoomLocked(); err != nil {
		return TurnStart{}, err
	}
	// While the last turn's checkpoint is finished the queue waits for it
	// (startNextLocked); a prompt sent then joins the queue rather than
	// jump it, unless the queue is paused (its prompts wait for a resume).
	queueWaits := s.ckpt.settling != nil && len(s.queue) > 0 && !s.paused
	if s.active != nil || s.reverting || queueWaits {
		entry, position, err := s.enqueueLocked(prompt, attachments, submitter, files)
		if err != nil {
			return TurnStart{}, err
		}
		return TurnStart{Status: "queued", Entry: &entry, Position: &position}, nil
	}
	t := s.newTurnLocked(prompt, attachments, "")
	t.files = files
	res := TurnStart{Status: "started", TurnID: t.id}
	if err := s.launchLocked(t, false); err != nil {
		t.cancel()
		return TurnStart{}, err
	}
	return res, nil
}

// CancelTurn cancels the running turn if its id matches.
func (s *Session) CancelTurn(turnID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active == nil || s.active.id != turnID {
		return errorf(CodeTurnNotFound, "turn %s is not running in session %s", turnID, s.id)
	}
	s.active.cancel()
	return nil
}

func (s *Session) newTurnLocked(prompt string, attachments resolved, queueID string) *turn {
	t := &turn{id: uuid.NewString(), prompt: prompt, attachments: attachments, queueID: queueID}
	t.ctx, t.cancel = context.WithCancel(s.ctx)
	return t
}

// launchLocked marks t running, announces it and starts its goroutine,
// which the session's WaitGroup owns. A turn a client starts (must
// false) is not started when turn.started cannot be stored: the error
// is its refusal, and the session is as it was. A turn from the queue
// (must) starts whatever the disk says: its dequeue went out already.
func (s *Session) launchLocked(t *turn, must bool) error {
	title, idle := s.title, s.idleSince
	s.active = t
	s.idleSince = time.Time{}
	// The prompt joins the history now, so turn.started's record stores it.
	s.addHistoryLocked(provider.Message{Role: provider.RoleUser, Content: t.attachments.text + t.prompt})
	s.marks.started(t.id, len(s.history))
	s.turnCount++
	if s.title == "" {
		s.title = store.Title(t.prompt)
	}
	started := TurnStarted{TurnID: t.id, QueueID: t.queueID, Prompt: t.prompt, Context: t.attachments.refs}
	if must {
		s.announceLocked(started)
	} else if err := s.undoOnRefusal(started, func() {
		s.active, s.idleSince, s.title = nil, idle, title
		s.takeBackHistoryLocked()
		s.marks.forget(t.id)
		s.turnCount--
	}); err != nil {
		return err
	}
	t.ckptAfter = s.ckpt.settling
	s.turns.Add(1)
	go func() {
		defer s.turns.Done()
		defer s.logPanic(t)
		o := s.runTurnGuarded(t)
		// The turn's end goes out before its checkpoint is finished: the
		// snapshot after a shell command walks the whole workspace, and
		// nobody should wait for that to see the answer end.
		if settled := s.endTurn(t, o); settled != nil {
			s.finishCheckpoint(t, settled)
		}
	}()
	return nil
}

// outcome is how a turn ended.
type outcome struct {
	err error // nil: completed
}

// endTurn emits the turn's one terminal event, hands the steers it never
// read to the queue (a closing session drops them with its queue) and
// starts the next queued prompt, unless the session could not be stored
// (then it pauses). When the turn has checkpoint work left it
// returns the channel to close once that is done (see finishCheckpoint); a
// closing session then finishes its close there, so the turn's changes
// are still stored.
func (s *Session) endTurn(t *turn, o outcome) (settled chan struct{}) {
	t.cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active = nil
	if t.ckptUsed {
		settled = make(chan struct{})
		s.ckpt.settling = settled
	}
	s.emitTerminalLocked(t, o)
	if s.closed {
		if s.ckpt.settling == nil { // else the pending checkpoint's finish closes it
			s.finishCloseLocked()
		}
		return settled
	}
	s.requeueSteersLocked(t)
	s.pauseOnStoreFailureLocked(o)
	s.startNextLocked()
	s.markIdleLocked()
	return settled
}

func (s *Session) emitTerminalLocked(t *turn, o outcome) {
	s.announceLocked(s.withLogFullNoticeLocked(s.terminalLocked(t, o)))
}

// terminalLocked is the event that ends t with o.
func (s *Session) terminalLocked(t *turn, o outcome) Payload {
	var tooLarge *eventTooLarge
	var perr *provider.Error
	switch {
	case o.err == nil:
		return TurnCompleted{TurnID: t.id, Steps: t.steps, Usage: t.usage, ChangesPending: t.ckptUsed}
	case errors.Is(o.err, context.Canceled) && t.ctx.Err() != nil:
		return TurnCancelled{TurnID: t.id, ChangesPending: t.ckptUsed}
	case errors.As(o.err, &tooLarge):
		return t.failed(TurnFailedResponseLimit, o.err.Error())
	case errors.As(o.err, &perr):
		return t.failed(string(perr.Code), perr.Error())
	case errors.Is(o.err, errMaxSteps):
		return t.failed("max_steps", fmt.Sprintf("the turn reached agent.max_steps (%d) without a final answer", s.cfg.Agent.MaxSteps))
	case CodeOf(o.err) == CodeStoreFailed || CodeOf(o.err) == CodeSessionTooLarge:
		return t.failed(string(CodeOf(o.err)), o.err.Error())
	case errors.Is(o.err, context.DeadlineExceeded):
		return t.failed(string(provider.CodeTimeout), o.err.Error())
	default: // a recovered panic (turnPanic) or another fault of scv
		return t.failed(TurnFailedInternal, o.err.Error())
	}
}

func (t *turn) failed(code, message string) TurnFailed {
	return TurnFailed{TurnID: t.id, Code: code, Message: message, ChangesPending: t.ckptUsed}
}

var errMaxSteps = errors.New("max steps reached")

// emitTurn emits an event of a running turn from its goroutine.
func (s *Session) emitTurn(p Payload) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.emitLocked(p)
}
