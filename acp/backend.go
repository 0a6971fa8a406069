package acp

import (
	"context"

	"scv/runtime/config"
	"scv/runtime/prompt"
	"scv/runtime/session"
	"scv/runtime/tools"
)

// Backend is where the sessions live: this process's Manager, or a daemon
// reached over the scv protocol. Both hand the door the runtime's typed
// events, so one translation serves both.
type Backend interface {
	// Start creates a session; its events go to the door's sink.
	Start(ctx context.Context, p session.StartParams) (session.Snapshot, error)
	// Attach subscribes to a session, loading it from the store when it
	// is stored only; with replay it returns the whole transcript (the
	// stored events, then the newer ones held in memory), oldest first.
	Attach(ctx context.Context, sessionID string, replay bool) (session.Snapshot, []session.Event, error)
	// List pages the open and stored sessions, newest first.
	List(ctx context.Context, opts session.ListOptions) (session.ListPage, error)
	// Delete removes a session from memory and from the store.
	Delete(ctx context.Context, sessionID string) error
	StartTurn(ctx context.Context, sessionID, prompt string, items []session.ContextItem, submitter string) (session.TurnStart, error)
	CancelTurn(ctx context.Context, sessionID, turnID string) error
	// RemoveQueued drops a queued prompt at whatever revision it has now.
	RemoveQueued(ctx context.Context, sessionID, queueID string) error
	Resolve(ctx context.Context, sessionID, approvalID, decision string) error
	Close(ctx context.Context, sessionID string) error
	// Configure switches a session's model or approval policy (an empty
	// value keeps it) and returns the values in force; with both empty it
	// only reads them. A change reaches every window as SessionConfigured.
	Configure(ctx context.Context, sessionID, model, policy string) (session.Configuration, error)
	// Models lists the models a session may switch to (nil when the
	// backend cannot tell).
	Models(ctx context.Context, sessionID string) []string
	// Skills lists the skills a session offers (nil when the backend
	// cannot tell).
	Skills(ctx context.Context, sessionID string) []prompt.Skill
	// Shutdown ends the backend's use by this door.
	Shutdown()
}

// Local drives a Manager in this process.
type Local struct {
	m   *session.Manager
	sub session.Subscriber
	// owned: the Manager belongs to this door (--daemon=never), so its
	// turns end with the door.
	owned bool
	// files gives a session the client's file access (see acp/files.go);
	// nil, or a nil answer: the disk.
	files func(sid string) tools.FileAccess
	given []*session.Session // sessions given it, cleared at Shutdown
}

// NewLocal returns a backend on m whose events go to sink. With owned,
// Shutdown cancels every turn of m.
func NewLocal(m *session.Manager, owned bool) *Local {
	return &Local{m: m, owned: owned}
}

func (l *Local) bind(sink func(session.Event)) { l.sub = &subscriber{sink} }

func (l *Local) bindFiles(files func(string) tools.FileAccess) { l.files = files }

// giveFiles routes s's file tools through this door's client, when it
// offers file access (through a daemon, Remote does it per prompt: see
// remotefiles.go).
func (l *Local) giveFiles(s *session.Session) {
	if l.files == nil || s == nil {
		return
	}
	if fa := l.files(s.ID()); fa != nil {
		s.SetFileAccess(fa)
		l.given = append(l.given, s)
	}
}

// subscriber adapts the door's sink to session.Subscriber; a pointer, so
// it can key the session's subscriber set.
type subscriber struct{ sink func(session.Event) }

func (s *subscriber) Deliver(ev session.Event) { s.sink(ev) }

func (l *Local) Start(_ context.Context, p session.StartParams) (session.Snapshot, error) {
	s, snap, err := l.m.Start(p, l.sub)
	if err == nil {
		l.giveFiles(s)
	}
	return snap, err
}

func (l *Local) Attach(_ context.Context, id string, replay bool) (session.Snapshot, []session.Event, error) {
	s, err := l.m.Load(id, config.Overrides{}) // the flags are this process's own
	if err != nil {
		return session.Snapshot{}, nil, err
	}
	l.giveFiles(s)
	var a session.Attachment
	if replay {
		a, err = s.AttachFull(l.sub)
	} else {
		a, err = s.Attach(l.sub, nil)
	}
	return a.Snapshot, a.Replay, err
}

func (l *Local) List(_ context.Context, opts session.ListOptions) (session.ListPage, error) {
	return l.m.ListSessions(opts)
}

func (l *Local) Delete(_ context.Context, id string) error { return l.m.Delete(id) }

func (l *Local) StartTurn(_ context.Context, id, prompt string, items []session.ContextItem, submitter string) (session.TurnStart, error) {
	s, err := l.m.Get(id)
	if err != nil {
		return session.TurnStart{}, err
	}
	return s.StartTurn(prompt, items, submitter)
}

func (l *Local) CancelTurn(_ context.Context, id, turnID string) error {
	s, err := l.m.Get(id)
	if err != nil {
		return err
	}
	return s.CancelTurn(turnID)
}

func (l *Local) RemoveQueued(_ context.Context, id, queueID string) error {
	s, err := l.m.Get(id)
	if err != nil {
		return err
	}
	for _, e := range s.Queue().Entries {
		if e.QueueID == queueID {
			_, err := s.RemoveQueue(queueID, e.Revision)
			return err
		}
	}
	return &session.Error{Code: session.CodeQueueNotFound, Message: "queue entry " + queueID + " is no longer queued"}
}

func (l *Local) Resolve(_ context.Context, id, approvalID, decision string) error {
	s, err := l.m.Get(id)
	if err != nil {
		return err
	}
	return s.Resolve(approvalID, decision)
}

func (l *Local) Close(_ context.Context, id string) error { return l.m.Close(id) }

func (l *Local) Configure(_ context.Context, id, model, policy string) (session.Configuration, error) {
	s, err := l.m.Get(id)
	if err != nil {
		return session.Configuration{}, err
	}
	return s.Configure(model, policy)
}

func (l *Local) Models(ctx context.Context, id string) []string {
	s, err := l.m.Get(id)
	if err != nil {
		return nil
	}
	return modelIDs(s.ListModels(ctx))
}

// modelIDs are a model list's ids, in its order.
func modelIDs(list session.ModelList) []string {
	out := make([]string, 0, len(list.Models))
	for _, m := range list.Models {
		out = append(out, m.ID)
	}
	return out
}

func (l *Local) Skills(_ context.Context, id string) []prompt.Skill {
	s, err := l.m.Get(id)
	if err != nil {
		return nil
	}
	return s.Skills()
}

func (l *Local) Shutdown() {
	l.m.DetachAll(l.sub)
	for _, s := range l.given {
		s.SetFileAccess(nil)
	}
	if l.owned {
		l.m.Shutdown()
	}
}
