package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"scv/lsp/client"
	lspschema "scv/lsp/schema"
	"scv/runtime/config"
	"scv/runtime/prompt"
	"scv/runtime/session"
	"scv/runtime/tools"
)

// ReplayWait bounds how long session/load waits for a daemon's replayed
// events to arrive after its attach reply.
const ReplayWait = 10 * time.Second

// Remote reaches the daemon's sessions over the scv protocol, so an ACP
// window shares them with VS Code and Neovim windows. The daemon's
// notifications are decoded back into the runtime's typed events.
type Remote struct {
	c *client.Client

	mu         sync.Mutex
	sink       func(session.Event)
	files      func(sid string) tools.FileAccess // the door's client files; see remotefiles.go
	collecting map[string]*collector
}

type collector struct {
	events []session.Event
	got    chan struct{} // signalled on each event
	done   bool          // the barrier after the replay was answered
}

// DialRemote performs the scv handshake on a daemon connection, handing
// the daemon this process's flags as a forwarding scv lsp does.
func DialRemote(ctx context.Context, conn net.Conn, flags config.Overrides, version string) (*Remote, error) {
	r := &Remote{collecting: map[string]*collector{}}
	r.c = client.New(conn, r.onNotify)
	r.c.HandleRequests(r.serveFile)
	pid, pv := os.Getpid(), lspschema.ProtocolVersion
	opts := &lspschema.ClientOptions{ProtocolVersion: &pv}
	if !flags.IsZero() {
		opts.Flags = &flags
	}
	params := lspschema.InitializeParams{
		ProcessID:             &pid,
		ClientInfo:            &lspschema.ClientInfo{Name: "scv acp " + version},
		InitializationOptions: &lspschema.InitializationOptions{SCV: opts},
	}
	if err := r.c.Call(ctx, protocol.MethodInitialize, params, nil); err != nil {
		_ = r.c.Close()
		return nil, fmt.Errorf("daemon handshake: %w", err)
	}
	if err := r.c.Notify(protocol.MethodInitialized, struct{}{}); err != nil {
		_ = r.c.Close()
		return nil, fmt.Errorf("daemon handshake: %w", err)
	}
	return r, nil
}

// Bind sets where events go; call it before serving.
func (r *Remote) Bind(sink func(session.Event)) {
	r.mu.Lock()
	r.sink = sink
	r.mu.Unlock()
}

func (r *Remote) onNotify(n client.Notification) {
	ev, ok := decodeEvent(n.Method, n.Params)
	if !ok {
		return
	}
	r.mu.Lock()
	if c := r.collecting[ev.SessionID]; c != nil {
		c.events = append(c.events, ev)
		r.mu.Unlock()
		select {
		case c.got <- struct{}{}:
		default:
		}
		return
	}
	sink := r.sink
	r.mu.Unlock()
	if sink != nil {
		sink(ev)
	}
}

// call runs one scv request, turning the daemon's refusal back into the
// runtime's error so the door maps it as it maps a local one.
func (r *Remote) call(ctx context.Context, method string, params, result any) error {
	err := r.c.Call(ctx, method, params, result)
	if e, ok := client.AsError(err); ok {
		code := session.Code(e.DataCode())
		if code == "" && e.Code == -32602 {
			code = session.CodeInvalidParams
		}
		return &session.Error{Code: code, Message: e.Message}
	}
	return err
}

func (r *Remote) Start(ctx context.Context, p session.StartParams) (session.Snapshot, error) {
	var snap session.Snapshot
	err := r.call(ctx, lspschema.MethodSessionStart, lspschema.SessionStartParams{
		Cwd: p.Cwd, Model: p.Model, Provider: p.Provider, BaseURL: p.BaseURL, ApprovalPolicy: p.ApprovalPolicy, NoTools: p.NoTools,
	}, &snap)
	return snap, err
}

func (r *Remote) Attach(ctx context.Context, id string, replay bool) (session.Snapshot, []session.Event, error) {
	var snap session.Snapshot
	if !replay {
		err := r.call(ctx, lspschema.MethodSessionAttach, lspschema.SessionAttachParams{SessionID: id}, &snap)
		return snap, nil, err
	}
	c := &collector{got: make(chan struct{}, 1)}
	r.mu.Lock()
	r.collecting[id] = c
	r.mu.Unlock()
	err := r.call(ctx, lspschema.MethodSessionAttach, lspschema.SessionAttachParams{SessionID: id, Replay: lspschema.ReplayFull}, &snap)
	// A full replay's seqs have holes (deltas are not stored), so the last
	// replayed event may be below the snapshot's seq: a barrier request
	// sent after the attach reply is answered after the replay the daemon
	// queued behind that reply.
	barrier, waited := make(chan struct{}), make(chan struct{})
	bctx, stop := context.WithCancel(ctx)
	go func() {
		defer close(waited)
		defer close(barrier)
		if err == nil {
			var q session.QueueState
			_ = r.c.Call(bctx, lspschema.MethodQueueList, lspschema.SessionRef{SessionID: id}, &q)
		}
	}()
	defer func() { stop(); <-waited }()
	deadline := time.After(ReplayWait)
	for err == nil && !c.reached(&r.mu, snap.Seq) {
		select {
		case <-c.got:
		case <-barrier:
			c.reachedAt(&r.mu)
			barrier = nil
		case <-deadline:
			err = errors.New("the daemon did not finish replaying the session")
		case <-r.c.Done():
			err = client.ErrConnectionClosed
		}
	}
	r.mu.Lock()
	delete(r.collecting, id)
	events := c.events
	sink := r.sink
	r.mu.Unlock()
	var held []session.Event
	for _, ev := range events {
		if ev.Seq <= snap.Seq {
			held = append(held, ev)
		} else if sink != nil {
			sink(ev)
		}
	}
	return snap, held, err
}

// reachedAt marks the replay complete: the barrier's answer came.
func (c *collector) reachedAt(mu *sync.Mutex) {
	mu.Lock()
	c.done = true
	mu.Unlock()
}

// reached reports whether the replay up to seq has arrived.
func (c *collector) reached(mu *sync.Mutex, seq uint64) bool {
	mu.Lock()
	defer mu.Unlock()
	if seq == 0 || c.done {
		return true
	}
	for _, ev := range c.events {
		if ev.Seq >= seq {
			return true
		}
	}
	return false
}

func (r *Remote) List(ctx context.Context, opts session.ListOptions) (session.ListPage, error) {
	var res lspschema.SessionListResult
	err := r.call(ctx, lspschema.MethodSessionList, lspschema.SessionListParams{Cwd: opts.Cwd, Cursor: opts.Cursor, Limit: opts.Limit}, &res)
	return session.ListPage{Sessions: res.Sessions, NextCursor: res.NextCursor}, err
}

func (r *Remote) Delete(ctx context.Context, id string) error {
	return r.call(ctx, lspschema.MethodSessionDelete, lspschema.SessionRef{SessionID: id}, nil)
}

func (r *Remote) StartTurn(ctx context.Context, id, prompt string, items []session.ContextItem, _ string) (session.TurnStart, error) {
	var res session.TurnStart
	err := r.call(ctx, lspschema.MethodTurnStart, lspschema.TurnStartParams{SessionID: id, Prompt: &prompt, Context: items,
		FileAccess: r.fileAccess(id)}, &res)
	return res, err
}

func (r *Remote) CancelTurn(ctx context.Context, id, turnID string) error {
	return r.call(ctx, lspschema.MethodTurnCancel, lspschema.TurnCancelParams{SessionID: id, TurnID: turnID}, nil)
}

func (r *Remote) RemoveQueued(ctx context.Context, id, queueID string) error {
	var q session.QueueState
	if err := r.call(ctx, lspschema.MethodQueueList, lspschema.SessionRef{SessionID: id}, &q); err != nil {
		return err
	}
	for _, e := range q.Entries {
		if e.QueueID == queueID {
			rev := e.Revision
			return r.call(ctx, lspschema.MethodQueueRemove, lspschema.QueueEditParams{SessionID: id, QueueID: queueID, Revision: &rev}, nil)
		}
	}
	return &session.Error{Code: session.CodeQueueNotFound, Message: "queue entry " + queueID + " is no longer queued"}
}

func (r *Remote) Resolve(ctx context.Context, id, approvalID, decision string) error {
	return r.call(ctx, lspschema.MethodApprovalResolve, lspschema.ApprovalResolveParams{SessionID: id, ApprovalID: approvalID, Decision: decision}, nil)
}

func (r *Remote) Close(ctx context.Context, id string) error {
	return r.call(ctx, lspschema.MethodSessionClose, lspschema.SessionRef{SessionID: id}, nil)
}

func (r *Remote) Configure(ctx context.Context, id, model, policy string) (session.Configuration, error) {
	var res lspschema.SessionConfigureResult
	err := r.call(ctx, lspschema.MethodSessionConfigure, lspschema.SessionConfigureParams{SessionID: id, Model: model, ApprovalPolicy: policy}, &res)
	return res, err
}

func (r *Remote) Models(ctx context.Context, id string) []string {
	var res lspschema.ModelListResult
	if err := r.call(ctx, lspschema.MethodModelList, lspschema.SessionRef{SessionID: id}, &res); err != nil {
		return nil
	}
	return modelIDs(res)
}

// Skills asks the daemon for the session's skills; nil when it cannot tell.
func (r *Remote) Skills(ctx context.Context, id string) []prompt.Skill {
	var res lspschema.SkillListResult
	if err := r.call(ctx, lspschema.MethodSkillList, lspschema.SessionRef{SessionID: id}, &res); err != nil {
		return nil
	}
	out := make([]prompt.Skill, 0, len(res.Skills))
	for _, k := range res.Skills {
		out = append(out, prompt.Skill{Name: k.Name, Description: k.Description, Scope: k.Scope})
	}
	return out
}

func (r *Remote) Shutdown() { _ = r.c.Close() }

// decodeEvent turns an scv event notification back into the typed event.
func decodeEvent(method string, params json.RawMessage) (session.Event, bool) {
	var head struct {
		SessionID string `json:"sessionId"`
		Seq       uint64 `json:"seq"`
	}
	if json.Unmarshal(params, &head) != nil || head.SessionID == "" {
		return session.Event{}, false
	}
	p, ok := decodePayload(method, params)
	if !ok {
		return session.Event{}, false
	}
	return session.Event{SessionID: head.SessionID, Seq: head.Seq, Payload: p}, true
}

func decodePayload(method string, raw json.RawMessage) (session.Payload, bool) {
	switch method {
	case lspschema.EvTurnStarted:
		return decodeAs[session.TurnStarted](raw)
	case lspschema.EvAssistantDelta:
		return decodeAs[session.AssistantDelta](raw)
	case lspschema.EvAssistantCompleted:
		return decodeAs[session.AssistantCompleted](raw)
	case lspschema.EvSessionRenamed:
		return decodeAs[session.SessionRenamed](raw)
	case lspschema.EvSessionRestored:
		return decodeAs[session.SessionRestored](raw)
	case lspschema.EvToolProposed:
		return decodeAs[session.ToolProposed](raw)
	case lspschema.EvToolStarted:
		return decodeAs[session.ToolStarted](raw)
	case lspschema.EvToolCompleted:
		return decodeAs[session.ToolCompleted](raw)
	case lspschema.EvApprovalRequested:
		return decodeAs[session.ApprovalRequested](raw)
	case lspschema.EvApprovalResolved:
		return decodeAs[session.ApprovalResolved](raw)
	case lspschema.EvTurnCompleted:
		return decodeAs[session.TurnCompleted](raw)
	case lspschema.EvTurnCancelled:
		return decodeAs[session.TurnCancelled](raw)
	case lspschema.EvTurnFailed:
		return decodeAs[session.TurnFailed](raw)
	case lspschema.EvQueueRemoved:
		return decodeAs[session.QueueRemoved](raw)
	case lspschema.EvAssistantReasoning:
		return decodeAs[session.AssistantReasoning](raw)
	case lspschema.EvToolOutput:
		return decodeAs[session.ToolOutput](raw)
	case lspschema.EvPlanUpdated:
		return decodeAs[session.PlanUpdated](raw)
	case lspschema.EvSessionUsage:
		return decodeAs[session.SessionUsage](raw)
	case lspschema.EvTurnSteered:
		return decodeAs[session.TurnSteered](raw)
	case lspschema.EvSessionConfigured:
		return decodeAs[session.SessionConfigured](raw)
	case lspschema.EvSessionCleared:
		return session.SessionCleared{}, true
	case lspschema.EvSessionClosed:
		return session.SessionClosed{}, true
	}
	return nil, false // events the ACP door does not translate
}

func decodeAs[T session.Payload](raw json.RawMessage) (session.Payload, bool) {
	var v T
	if json.Unmarshal(raw, &v) != nil {
		return nil, false
	}
	return v, true
}
