package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"

	"scv/runtime/config"
	"scv/runtime/store"
)

// create stores a session that Start built.
func (m *Manager) create(s *Session) error {
	st := m.opts.Store
	if st == nil {
		return nil
	}
	log, err := st.Create(store.Header{
		ID: s.id, Cwd: s.cwd, Model: s.cfg.Provider.Model, Provider: s.cfg.Provider.Kind,
		ApprovalPolicy: s.cfg.Agent.ApprovalPolicy, CreatedAt: s.createdAt, Ceiling: s.ceiling.Encode(),
	})
	if err != nil {
		return storeError(s.id, fmt.Errorf("store the new session: %w", err))
	}
	s.disk = disk{store: st, log: log}
	return nil
}

// storeError maps a store error about session id to a refusal.
func storeError(id string, err error) error {
	switch {
	case errors.Is(err, store.ErrOwned):
		return errorf(CodeSessionOwned, "%v", err)
	case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrInvalidID):
		return errorf(CodeSessionNotFound, "session %q was not found", id)
	case errors.Is(err, store.ErrFormat):
		return errorf(CodeSessionNotFound, "session %s cannot be loaded: %v", id, err)
	case errors.Is(err, store.ErrTooLarge):
		return errorf(CodeSessionTooLarge, "%v", err)
	case errors.Is(err, store.ErrWrite):
		return errorf(CodeStoreFailed, "session %s could not be stored: %v", id, err)
	}
	return err
}

// Load returns the session id: the loaded one, or else the stored one,
// loaded from the store. Loading rebuilds the model's history, the queue,
// the paused flag and the tools approved for the session, and resumes seq
// above every seq the session ever emitted (see SeqReserveBlock). When the
// file shows a turn that was running or prompts still queued, the session
// comes back paused: the running turn fails with code interrupted, its
// pending approvals are cancelled, and a SessionRestored event says so.
//
// flags are the command-line flags of the connection that asks (a
// forwarding bridge's, as StartParams.Flags): like this process's own they
// tighten the ceiling of a session loaded now, so `scv lsp --approval=always`
// holds a stored session to always whether it serves it or forwards to a
// daemon. A session already loaded keeps its ceiling: the flags of a window
// that attaches do not change a session another window holds.
func (m *Manager) Load(id string, flags config.Overrides) (*Session, error) {
	if s, err := m.Get(id); err == nil || m.opts.Store == nil {
		return s, err
	}
	m.closing.wait(id) // a session closed a moment ago still holds its log
	m.loading.Lock()
	defer m.loading.Unlock()
	if s, err := m.Get(id); err == nil {
		return s, nil
	}
	if !store.ValidID(id) {
		return nil, errorf(CodeSessionNotFound, "session %q was not found", id)
	}
	place, err := m.reserve()
	if err != nil {
		return nil, err
	}
	defer place.release()
	log, loaded, err := m.opts.Store.Load(id)
	if err != nil {
		return nil, storeError(id, err)
	}
	for _, w := range loaded.Warnings {
		m.opts.Log.Warn("damage in a session file was skipped", "session", id, "warning", w.String())
	}
	s, err := m.restore(log, loaded, flags)
	if err != nil {
		log.Close()
		return nil, err
	}
	place.fill(s)
	// The servers of the user's config; those a session/start named are
	// not stored, so a reloaded session runs without them.
	m.startMCP(s)
	return s, nil
}

func (m *Manager) restore(log *store.Log, loaded store.Loaded, flags config.Overrides) (*Session, error) {
	h := loaded.Header
	cwd, err := checkCwd(h.Cwd)
	if err != nil {
		return nil, errorf(CodeInvalidCwd, "session %s cannot be loaded: its workspace: %v", h.ID, err)
	}
	ds := decodeRecords(loaded.Records)
	r := rebuildDecoded(ds)
	rc, err := m.restoredConfig(cwd, h, r.configured, flags)
	if err != nil {
		return nil, err
	}
	if rc.tightened && len(r.approved) > 0 {
		m.opts.Log.Warn("the tools approved for the session are asked again: the load tightened its ceiling", "session", h.ID, "ceiling", rc.ceil.Bounds())
		r.approved = map[string]bool{}
	}
	s, err := m.build(h.ID, h.CreatedAt, cwd, rc.cfg, rc.ceil)
	if err != nil {
		return nil, err
	}
	for _, p := range r.problems {
		m.opts.Log.Warn("a stored record was skipped", "session", h.ID, "err", p)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.history, s.queue, s.queueBytes, s.nextQueue = r.history, r.queue, r.queueBytes(), r.nextQueue
	s.paused, s.sessionApproved, s.seq, s.turnCount = r.paused, r.approved, r.seq, r.turns
	s.title, s.live, s.marks = r.title, r.live, r.marks
	if s.title == "" {
		s.title = loaded.Meta.Title
	}
	s.disk = disk{store: m.opts.Store, log: log}
	s.disk.toldFull = s.disk.toldFullAtLoad(r.toldFull)
	s.disk.reserved.Store(r.reserved)
	if loaded.Meta != s.metaLocked() {
		// The sidecar missed a change the log kept (it could not be
		// written, on a full disk, before the session closed): a listing
		// would show it stale for as long as the session is stored.
		s.writeMetaLocked()
	}
	if r.running != "" || len(r.open) > 0 || len(r.queue) > 0 {
		s.restoreInterruptedLocked(r)
	}
	s.keepLoadedLocked(storedEvents(h.ID, ds))
	s.markIdleLocked()
	return s, nil
}

// restoreInterruptedLocked records what the process that died left
// unfinished, and pauses the session so nothing runs by surprise.
func (s *Session) restoreInterruptedLocked(r rebuilt) {
	ev := SessionRestored{InterruptedTurnID: r.running, CancelledApprovals: []string{}, Queued: len(r.queue), Paused: true}
	for _, a := range r.open {
		s.announceLocked(ApprovalResolved{TurnID: a.TurnID, ApprovalID: a.ApprovalID, Decision: DecisionCancelled})
		ev.CancelledApprovals = append(ev.CancelledApprovals, a.ApprovalID)
	}
	if r.running != "" {
		s.answerOpenCallsLocked()
		s.announceLocked(s.withLogFullNoticeLocked(TurnFailed{TurnID: r.running, Code: TurnFailedInterrupted,
			Message: "the scv process serving this session stopped while this turn ran; the response it was streaming is lost"}))
	}
	s.paused = true
	s.announceLocked(ev)
}

// ListOptions filter and page ListSessions.
type ListOptions struct {
	Cwd    string
	Cursor string
	Limit  int
}

// ListPage is one page of ListSessions.
type ListPage struct {
	Sessions   []Summary
	NextCursor string
}

// ListSessions lists loaded and stored sessions, newest first, each once:
// a loaded session shows its live state, a stored one "stored" with the
// title, turns and queued count of its sidecar. It loads nothing.
func (m *Manager) ListSessions(opts ListOptions) (ListPage, error) {
	if opts.Cwd != "" {
		if resolved, err := filepath.EvalSymlinks(opts.Cwd); err == nil {
			opts.Cwd = resolved
		}
	}
	if m.opts.Store == nil {
		var page ListPage
		all := m.List()
		for i := len(all) - 1; i >= 0; i-- {
			if opts.Cwd == "" || all[i].Cwd == filepath.Clean(opts.Cwd) {
				page.Sessions = append(page.Sessions, all[i])
			}
		}
		return page, nil
	}
	if opts.Cwd != "" && !filepath.IsAbs(opts.Cwd) {
		return ListPage{}, errorf(CodeInvalidParams, "cwd must be an absolute path, got %q", opts.Cwd)
	}
	stored, err := m.opts.Store.List(store.ListOptions{Cwd: opts.Cwd, Cursor: opts.Cursor, Limit: opts.Limit})
	if errors.Is(err, store.ErrBadCursor) {
		return ListPage{}, errorf(CodeInvalidParams, "%v", err)
	}
	if err != nil {
		return ListPage{}, err
	}
	for _, p := range stored.Problems {
		m.opts.Log.Warn("a stored session could not be listed", "err", p)
	}
	page := ListPage{Sessions: make([]Summary, 0, len(stored.Sessions)), NextCursor: stored.NextCursor}
	for _, row := range stored.Sessions {
		sum := Summary{
			SessionID: row.ID, Title: row.Title, Cwd: row.Cwd, Model: row.Model, State: StateStored,
			Turns: row.Turns, Queued: row.Queued, CreatedAt: row.CreatedAt.UTC().Format(time.RFC3339),
		}
		if s, err := m.Get(row.ID); err == nil {
			sum = s.Summary()
		}
		sum.UpdatedAt = row.UpdatedAt.UTC().Format(time.RFC3339)
		page.Sessions = append(page.Sessions, sum)
	}
	return page, nil
}

// Rename sets a session's title, loading it when it is stored only (with
// flags, as Load).
func (m *Manager) Rename(id, title string, flags config.Overrides) error {
	title = strings.TrimSpace(title)
	switch {
	case title == "":
		return errorf(CodeInvalidParams, "title is empty")
	case len(title) > store.MaxTitleBytes:
		return errorf(CodeInvalidParams, "title is %d bytes; the limit is %d", len(title), store.MaxTitleBytes)
	case strings.ContainsAny(title, "\r\n"):
		return errorf(CodeInvalidParams, "title must be one line")
	}
	s, err := m.Load(id, flags)
	if err != nil {
		return err
	}
	return s.Rename(title)
}

// Delete removes a session from memory and from the store. It is refused
// while a turn runs, and for a session another process owns.
func (m *Manager) Delete(id string) error {
	s, err := m.Get(id)
	if err == nil {
		if s.Running() {
			return errorf(CodeTurnActive, "a turn is running in session %s; cancel it before deleting the session", id)
		}
		m.Close(id)
	}
	m.closing.wait(id) // its last records are written and its log closed
	if m.opts.Store == nil {
		return err
	}
	if err := m.opts.Store.Delete(id); err != nil {
		return storeError(id, err)
	}
	return m.dropCheckpoints(id)
}

// Fork stores a new session whose history is session id's up to the end
// of turn turnID (the last ended turn when empty), and returns its id. The
// fork is not loaded until attached; its queue starts empty.
func (m *Manager) Fork(id, turnID string) (string, error) {
	st := m.opts.Store
	if st == nil {
		return "", errorf(CodeUnsupported, "sessions are not stored by this server, so they cannot be forked")
	}
	m.closing.wait(id)
	if s, err := m.Get(id); err == nil {
		s.awaitCheckpoints() // the changes of its last turn are stored then
		s.mu.Lock()
		s.syncDiskLocked()
		s.mu.Unlock()
	}
	loaded, err := st.Read(id)
	if err != nil {
		return "", storeError(id, err)
	}
	ds := decodeRecords(loaded.Records) // read once, for the cut and for what it keeps
	cut, found := forkPoint(ds, turnID)
	if turnID != "" && !found {
		return "", errorf(CodeTurnNotFound, "turn %s has not ended in session %s", turnID, id)
	}
	recs := keptByFork(loaded.Records, ds, cut)
	r := rebuild(recs)
	if len(r.queue) > 0 || r.paused {
		// The prompts queued then belong to the original session.
		empty := QueueSnapshot{QueueState{Entries: []QueueEntry{}}}
		data, _ := json.Marshal(empty)
		typ, _ := RecordType(empty)
		recs = append(recs, store.Record{Seq: r.seq + 1, Type: typ, At: time.Now(), Data: data})
	}
	h := loaded.Header
	fork := store.Header{
		ID: uuid.NewString(), Cwd: h.Cwd, Model: h.Model, Provider: h.Provider, ApprovalPolicy: h.ApprovalPolicy,
		Ceiling: h.Ceiling, Title: r.title, ForkedFrom: &store.ForkPoint{ID: id, Seq: cut},
	}
	log, err := st.CreateFrom(fork, recs)
	if err != nil {
		return "", storeError(fork.ID, fmt.Errorf("fork session %s: %w", id, err))
	}
	meta := store.Meta{Title: r.title, Turns: r.turns}
	if r.configured != nil {
		meta.Model = r.configured.Model
	}
	err = log.SetMeta(meta)
	if cerr := log.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("fork session %s: %w", id, err)
	}
	return fork.ID, m.copyCheckpoints(id, fork.ID)
}

// keptByFork are the records a fork cut at cut starts from: those up to
// it, and the changes of its turns stored after it (a turn's changes are
// stored once its checkpoint is finished, after its end and maybe after
// the next turn began), numbered on from the cut.
func keptByFork(records []store.Record, ds []decoded, cut uint64) []store.Record {
	var kept []store.Record
	ended := map[string]bool{}
	for i, rec := range records {
		d := ds[i]
		if rec.Seq <= cut {
			kept = append(kept, rec)
			if id, ok := endedTurn(d.payload); ok && d.err == nil {
				ended[id] = true
			}
			continue
		}
		if c, ok := d.payload.(TurnChanges); ok && d.err == nil && ended[c.TurnID] {
			rec.Seq = cut + 1
			cut++
			kept = append(kept, rec)
		}
	}
	return kept
}

// endedTurn is the turn a terminal event ended.
func endedTurn(p Payload) (string, bool) {
	switch e := p.(type) {
	case TurnCompleted:
		return e.TurnID, true
	case TurnCancelled:
		return e.TurnID, true
	case TurnFailed:
		return e.TurnID, true
	}
	return "", false
}

// forkPoint is the seq of the record that ended turn turnID (the last
// turn that ended when turnID is empty).
func forkPoint(ds []decoded, turnID string) (cut uint64, found bool) {
	for _, d := range ds {
		if d.err != nil {
			continue
		}
		ended, _ := endedTurn(d.payload)
		if turnID == "" || ended == turnID {
			cut, found = d.seq, true
			if turnID != "" {
				return cut, true
			}
		}
	}
	return cut, found
}

// Prune applies retention to the store: at most maxCount sessions, none
// older than maxAge. Loaded sessions are kept (their logs are open).
func (m *Manager) Prune(maxCount int, maxAge time.Duration) ([]string, error) {
	if m.opts.Store == nil {
		return nil, nil
	}
	return m.opts.Store.Prune(maxCount, maxAge, func(id string) bool {
		_, err := m.Get(id)
		return err == nil
	})
}
