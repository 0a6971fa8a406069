package session

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"scv/runtime/ceiling"
	"scv/runtime/config"
	"scv/runtime/mcp"
	"scv/runtime/prompt"
	"scv/runtime/provider"
	"scv/runtime/tools"
)

// Session is one conversation with the agent in one workspace.
type Session struct {
	id    string
	cwd   string
	home  string            // $SCV_HOME, where the configuration files are
	rules *config.RuleWatch // the process's guard over the user's allow rules
	model string
	// configuredModels are provider.models, offered by ListModels.
	configuredModels []string
	modelCache       *provider.ModelCache // the Manager's; nil: no provider list
	createdAt        time.Time
	now              func() time.Time // the Manager's clock; nil means time.Now
	cfg              config.Config
	ceiling          ceiling.Ceiling // bounds every policy the session takes; fixed at its start (runtime/ceiling)
	limits           Limits
	provider         provider.Provider
	registry         *tools.Registry // never nil; empty without tools
	workspace        *tools.Workspace
	system           string
	log              *slog.Logger // where a turn's panic and its stack go
	mcp              *mcp.Manager // nil without MCP servers; set once, under mu

	// ctx ends when the session closes; every turn runs under it.
	ctx    context.Context
	cancel context.CancelFunc
	turns  sync.WaitGroup

	mu              sync.Mutex
	seq             uint64
	ring            ring
	subs            map[Subscriber]struct{}
	subList         []Subscriber // subs in attach order (see subscribeLocked)
	memos           memoSlab
	history         []provider.Message
	queue           []QueueEntry
	queueBytes      int
	nextQueue       uint64
	paused          bool
	active          *turn
	approvals       []*pendingApproval
	sessionApproved map[string]bool
	closed          bool
	closeDone       chan struct{}          // closed when the close has finished (finishCloseLocked)
	onClosed        func(sessionID string) // Options.OnClosed
	stopping        bool                   // the process is shutting down: start no turn
	idleSince       time.Time
	title           string
	turnCount       int
	live            liveState        // usage totals and the plan (live.go)
	disk            disk             // where the session is stored; zero: memory only
	files           tools.FileAccess // see SetFileAccess; nil: the disk
	skills          []prompt.Skill   // listed in system; set once by build
	marks           turnMarks        // where turns begin in history; which were reverted
	reverting       bool             // a revert is restoring files: no turn starts
	ckpt            checkpoints      // undo: has its own lock
}

// ID returns the session's id.
func (s *Session) ID() string { return s.id }

// Snapshot is a session's state as a newly attached client needs it.
type Snapshot struct {
	SessionID        string            `json:"sessionId"`
	Cwd              string            `json:"cwd"`
	Model            string            `json:"model"`
	State            string            `json:"state"`
	TurnID           string            `json:"turnId,omitempty"`
	Queue            QueueState        `json:"queue"`
	PendingApprovals []ApprovalRequest `json:"pendingApprovals"`
	Seq              uint64            `json:"seq"`
	ContextMaxTokens int               `json:"contextMaxTokens"`
	// Usage is the last scv/session/usage and Plan the last
	// scv/plan/updated, so a window that attaches late shows them.
	Usage  *SessionUsage `json:"usage,omitempty"`
	Plan   *PlanUpdated  `json:"plan,omitempty"`
	Limits Limits        `json:"limits"`
	Title  string        `json:"title,omitempty"`
}

// QueueState is the queue and whether it is paused.
type QueueState struct {
	Entries []QueueEntry `json:"entries"`
	Paused  bool         `json:"paused"`
}

// Summary is one row of scv/session/list.
type Summary struct {
	SessionID string `json:"sessionId"`
	Title     string `json:"title"`
	Cwd       string `json:"cwd"`
	Model     string `json:"model"`
	// State is running or idle for a loaded session, stored for one that
	// is only on disk.
	State     string `json:"state"`
	Turns     int    `json:"turns"`
	Queued    int    `json:"queued"`
	Clients   int    `json:"clients"`
	CreatedAt string `json:"createdAt"`
	UpdatedAt string `json:"updatedAt,omitempty"`
}

// StateStored is the Summary state of a session that is on disk only.
const StateStored = "stored"

func (s *Session) stateLocked() string {
	if s.active != nil {
		return "running"
	}
	return "idle"
}

func (s *Session) snapshotLocked() Snapshot {
	snap := Snapshot{
		SessionID:        s.id,
		Cwd:              s.cwd,
		Model:            s.model,
		State:            s.stateLocked(),
		Queue:            s.queueStateLocked(),
		PendingApprovals: []ApprovalRequest{},
		Seq:              s.seq,
		ContextMaxTokens: s.cfg.Context.MaxTokens,
		Limits:           s.limits,
		Title:            s.title,
	}
	if s.active != nil {
		snap.TurnID = s.active.id
	}
	snap.Usage, snap.Plan = s.live.lastUsage, s.live.plan
	for _, p := range s.approvals {
		snap.PendingApprovals = append(snap.PendingApprovals, p.request)
	}
	return snap
}

func (s *Session) queueStateLocked() QueueState {
	entries := make([]QueueEntry, len(s.queue))
	copy(entries, s.queue)
	return QueueState{Entries: entries, Paused: s.paused}
}

// Summary describes the session for scv/session/list.
func (s *Session) Summary() Summary {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Summary{
		SessionID: s.id,
		Title:     s.title,
		Cwd:       s.cwd,
		Model:     s.model,
		State:     s.stateLocked(),
		Turns:     s.turnCount,
		Queued:    len(s.queue),
		Clients:   len(s.subs),
		CreatedAt: s.createdAt.UTC().Format(time.RFC3339),
	}
}

// Attachment is what a new subscriber learns at once: the state, the held
// events after its afterSeq (oldest first) and, when the ring no longer
// holds afterSeq+1, GapFrom, the oldest seq it still has. Every event
// delivered to the subscriber afterwards has a seq above Snapshot.Seq.
type Attachment struct {
	Snapshot Snapshot
	Replay   []Event
	GapFrom  uint64
}

// Attach subscribes sub to the session's events. With afterSeq nil nothing
// is replayed.
func (s *Session) Attach(sub Subscriber, afterSeq *uint64) (Attachment, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Attachment{}, errorf(CodeSessionNotFound, "session %s is closed", s.id)
	}
	s.disk.loaded = nil // see keepLoadedLocked
	a := Attachment{Snapshot: s.snapshotLocked()}
	if afterSeq != nil && *afterSeq < s.seq {
		var oldest uint64
		a.Replay, oldest = s.ring.after(*afterSeq)
		if oldest > *afterSeq+1 {
			a.GapFrom = oldest
		}
	}
	s.subscribeLocked(sub)
	s.idleSince = time.Time{}
	return a, nil
}

// AttachFull subscribes sub like Attach and replays the whole transcript:
// the session's stored events from its file (oldest first, with their
// seqs; deltas are not stored, so seqs have holes), then the ring's
// events newer than the last stored record. A session kept in memory
// only replays its ring from the start.
func (s *Session) AttachFull(sub Subscriber) (Attachment, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Attachment{}, errorf(CodeSessionNotFound, "session %s is closed", s.id)
	}
	a := Attachment{Snapshot: s.snapshotLocked()}
	var last uint64
	if s.disk.log != nil {
		var err error
		if a.Replay, last, err = s.storedTranscriptLocked(); err != nil {
			return Attachment{}, err
		}
	}
	rest, oldest := s.ring.after(last)
	if last == 0 && oldest > 1 {
		a.GapFrom = oldest
	}
	a.Replay = append(a.Replay, rest...)
	s.subscribeLocked(sub)
	s.idleSince = time.Time{}
	return a, nil
}

// Rename sets the session's title (stored, and sent as session/renamed).
func (s *Session) Rename(title string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errorf(CodeSessionNotFound, "session %s is closed", s.id)
	}
	old := s.title
	s.title = title
	return s.undoOnRefusal(SessionRenamed{Title: title}, func() { s.title = old })
}

// Detach stops delivering events to sub. It reports whether sub was attached.
func (s *Session) Detach(sub Subscriber) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.subs[sub]; !ok {
		return false
	}
	s.unsubscribeLocked(sub)
	s.markIdleLocked()
	return true
}

// Attached reports whether sub receives the session's events.
func (s *Session) Attached(sub Subscriber) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.subs[sub]
	return ok
}

func (s *Session) markIdleLocked() {
	if len(s.subs) == 0 && s.active == nil && s.idleSince.IsZero() {
		s.idleSince = time.Now()
		if s.now != nil {
			s.idleSince = s.now()
		}
	}
}

// idleFor reports how long the session has had no client and no turn.
func (s *Session) idleFor(now time.Time) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.idleSince.IsZero() || len(s.subs) > 0 || s.active != nil {
		return 0
	}
	return now.Sub(s.idleSince)
}

// Running reports whether a turn is running.
func (s *Session) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active != nil
}

// Pause sets or clears the paused flag. Resuming an idle session starts its
// next queued prompt.
func (s *Session) Pause(paused bool) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false, errorf(CodeSessionNotFound, "session %s is closed", s.id)
	}
	if s.paused != paused {
		s.paused = paused
		if err := s.undoOnRefusal(SessionPaused{paused}, func() { s.paused = !paused }); err != nil {
			return !paused, err
		}
	}
	if !paused {
		s.startNextLocked()
	}
	return paused, nil
}

// Clear empties history and queue; refused while a turn runs.
func (s *Session) Clear() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errorf(CodeSessionNotFound, "session %s is closed", s.id)
	}
	if s.active != nil {
		return errorf(CodeTurnActive, "a turn is running in session %s; cancel it before clearing", s.id)
	}
	history, queue, queueBytes, approved, plan, base := s.history, s.queue, s.queueBytes, s.sessionApproved, s.live.plan, s.marks.base
	s.marks.dropped(len(s.history))
	s.history = nil
	s.queue = nil
	s.queueBytes = 0
	s.sessionApproved = map[string]bool{}
	s.live.plan = nil
	err := s.undoOnRefusal(SessionCleared{}, func() {
		s.history, s.queue, s.queueBytes, s.sessionApproved, s.live.plan, s.marks.base = history, queue, queueBytes, approved, plan, base
	})
	if err != nil {
		return err
	}
	// A load replays session.cleared as an empty queue already: the
	// snapshot tells the clients.
	s.announceLocked(QueueSnapshot{s.queueStateLocked()})
	return nil
}

// close cancels the running turn, drops the queue and tells every client.
// It does not wait for the turn; Manager does.
func (s *Session) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	if len(s.queue) > 0 {
		// Stored, so a later load does not bring the dropped prompts back.
		s.queue = nil
		s.queueBytes = 0
		s.announceLocked(QueueSnapshot{s.queueStateLocked()})
	}
	s.cancel()
	if s.active == nil && s.ckpt.settling == nil {
		s.finishCloseLocked()
	} else {
		s.ckpt.stopTimer = time.AfterFunc(checkpointCloseGrace, s.ckpt.stop)
	}
	// With a turn running, its terminal event goes out first and the turn
	// finishes the close (see endTurn); with a turn's checkpoint still
	// being finished, its changes are stored first (see finishCheckpoint).
	s.closed = true
}

func (s *Session) finishCloseLocked() {
	if isClosed(s) {
		return
	}
	// The lock on the file goes first: a client told the session closed
	// may load it again at once.
	s.closeDiskLocked()
	if s.ckpt.stopTimer != nil {
		s.ckpt.stopTimer.Stop()
	}
	s.ckpt.stop()
	s.announceLocked(SessionClosed{})
	s.subs, s.subList = map[Subscriber]struct{}{}, nil
	// Its turns are on disk; whoever still holds the closed session (the
	// Manager's closing set, a request that looked it up) must not keep
	// them in memory.
	s.ring.reset()
	s.history = nil
	s.disk.loaded = nil
	close(s.closeDone)
	if s.onClosed != nil {
		s.onClosed(s.id)
	}
}
