package acp

import (
	"context"
	"encoding/json"
	"sort"

	"scv/acp/schema"
	"scv/runtime/session"
)

// handler answers a request: a result, an error, or (deferred) nothing
// yet because the answer comes later from the event pump.
type handler func(d *Door, id, params json.RawMessage) (result any, deferred bool, err error)

// methods is the dispatch table; Methods lists it for the docs test.
var methods = map[string]handler{
	schema.MethodInitialize:       handleInitialize,
	schema.MethodAuthenticate:     handleAuthenticate,
	schema.MethodSessionNew:       handleNew,
	schema.MethodSessionLoad:      handleLoad,
	schema.MethodSessionResume:    handleResume,
	schema.MethodSessionList:      handleList,
	schema.MethodSessionClose:     handleClose,
	schema.MethodSessionDelete:    handleDelete,
	schema.MethodSessionPrompt:    handlePrompt,
	schema.MethodSessionSetMode:   handleSetMode,
	schema.MethodSessionSetConfig: handleSetConfig,
}

// Methods lists the requests the door serves, sorted.
func Methods() []string {
	out := make([]string, 0, len(methods))
	for m := range methods {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

func (d *Door) handleRequest(id json.RawMessage, method string, params json.RawMessage) {
	h, ok := methods[method]
	if !ok {
		d.replyError(id, rpcError(schema.CodeMethodNotFound, "method_not_found", "method not found: "+method))
		return
	}
	d.mu.Lock()
	initialized := d.initialized
	d.mu.Unlock()
	if !initialized && method != schema.MethodInitialize {
		d.replyError(id, rpcError(schema.CodeInvalidRequest, "not_initialized", "send initialize first"))
		return
	}
	result, deferred, err := h(d, id, params)
	switch {
	case err != nil:
		d.replyError(id, toWire(err))
	case !deferred:
		d.reply(id, result)
	}
}

func (d *Door) handleNotification(method string, params json.RawMessage) {
	switch method {
	case schema.MethodSessionCancel:
		var p schema.SessionRef
		if unmarshalParams(params, &p) != nil {
			return
		}
		d.cancel(p.SessionID)
	case schema.MethodCancelRequest:
		var p schema.CancelRequestParams
		if unmarshalParams(params, &p) != nil {
			return
		}
		d.cancelRequest(p.RequestID)
	default:
		d.opts.Log.Info("ignored an unknown ACP notification", "method", method)
	}
}

func handleInitialize(d *Door, _, params json.RawMessage) (any, bool, error) {
	var p schema.InitializeParams
	if err := unmarshalParams(params, &p); err != nil {
		return nil, false, err
	}
	if p.ProtocolVersion == nil {
		return nil, false, invalidParams("params.protocolVersion is required")
	}
	d.mu.Lock()
	d.initialized = true
	d.clientFS = p.ClientCapabilities
	d.notices = p.ClientCapabilities.Session != nil && p.ClientCapabilities.Session.Notices != nil
	d.mu.Unlock()
	// Version negotiation: scv answers the one version it speaks; a client
	// that cannot speak it closes the connection.
	return schema.InitializeResult{
		ProtocolVersion: schema.ProtocolVersion,
		AgentCapabilities: schema.AgentCapabilities{
			LoadSession:         true,
			PromptCapabilities:  schema.PromptCapabilities{EmbeddedContext: true},
			SessionCapabilities: schema.SessionCapabilities{List: &schema.Empty{}, Resume: &schema.Empty{}, Close: &schema.Empty{}, Delete: &schema.Empty{}},
		},
		AgentInfo:   schema.Implementation{Name: "scv", Title: "scv", Version: d.opts.Version},
		AuthMethods: []any{},
		Meta:        &schema.InitializeMeta{SCV: liveLimits()},
	}, false, nil
}

func handleAuthenticate(*Door, json.RawMessage, json.RawMessage) (any, bool, error) {
	return schema.Empty{}, false, nil // no method is offered, so none is needed
}

func handleNew(d *Door, id, params json.RawMessage) (any, bool, error) {
	var p schema.SessionNewParams
	if err := unmarshalParams(params, &p); err != nil {
		return nil, false, err
	}
	if len(p.McpServers) > 0 {
		d.opts.Log.Info("MCP servers are not supported yet; ignoring them", "count", len(p.McpServers))
	}
	snap, err := d.be.Start(d.ctx, session.StartParams{Cwd: p.Cwd})
	if err != nil {
		return nil, false, err
	}
	d.track(snap)
	setup := d.setup(snap.SessionID)
	setup.SessionID = snap.SessionID
	d.reply(id, setup)
	d.sendCommands(snap.SessionID, d.commands(d.ctx, snap.SessionID))
	return nil, true, nil
}

func (d *Door) track(snap session.Snapshot) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.sessions[snap.SessionID] = &sessState{cwd: snap.Cwd, model: snap.Model, running: snap.TurnID, title: snap.Title}
}

// known returns this connection's state of a session it opened.
func (d *Door) known(sid string) (*sessState, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	st := d.sessions[sid]
	if st == nil {
		return nil, rpcError(schema.CodeResourceNotFound, string(session.CodeSessionNotFound),
			"session "+quote(sid)+" is not open on this connection: create it with session/new or open it with session/load or session/resume")
	}
	return st, nil
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func handleLoad(d *Door, id, params json.RawMessage) (any, bool, error) {
	return d.open(id, params, true)
}

func handleResume(d *Door, id, params json.RawMessage) (any, bool, error) {
	return d.open(id, params, false)
}

// open attaches to a session of the backend. With replay, the events the
// session still holds go out as updates before the answer.
func (d *Door) open(id, params json.RawMessage, replay bool) (any, bool, error) {
	var p schema.SessionLoadParams
	if err := unmarshalParams(params, &p); err != nil {
		return nil, false, err
	}
	if p.SessionID == "" {
		return nil, false, invalidParams("params.sessionId is required")
	}
	d.hold()
	defer d.release()
	snap, events, err := d.be.Attach(d.ctx, p.SessionID, replay)
	if err != nil {
		return nil, false, err
	}
	d.track(snap)
	setup := d.setup(snap.SessionID)
	cmds := d.commands(d.ctx, snap.SessionID)
	pending := snap.PendingApprovals
	d.insertReplay(snap, events, func() {
		if snap.Title != "" {
			d.sendTitle(snap.SessionID, snap.Title)
		}
		d.reply(id, setup)
		d.sendCommands(snap.SessionID, cmds)
		if !replay {
			d.sendProgress(snap) // a load's replay has shown them
		}
		// Approvals asked before this client came are asked again here.
		for _, a := range pending {
			d.askPermission(a.SessionID, a.Approval)
		}
	})
	return nil, true, nil
}

func handleList(d *Door, _, params json.RawMessage) (any, bool, error) {
	var p schema.SessionListParams
	if len(params) > 0 && string(params) != "null" {
		if err := unmarshalParams(params, &p); err != nil {
			return nil, false, err
		}
	}
	opts := session.ListOptions{Limit: ListPageSize}
	if p.Cwd != nil {
		opts.Cwd = *p.Cwd
	}
	if p.Cursor != nil {
		opts.Cursor = *p.Cursor
	}
	page, err := d.be.List(d.ctx, opts)
	if err != nil {
		return nil, false, err
	}
	return listRows(page, d.titleOf), false, nil
}

// handleDelete removes a session, open or stored, from the runtime and the
// store; it is refused while a turn runs.
func handleDelete(d *Door, _, params json.RawMessage) (any, bool, error) {
	var p schema.SessionRef
	if err := unmarshalParams(params, &p); err != nil {
		return nil, false, err
	}
	if p.SessionID == "" {
		return nil, false, invalidParams("params.sessionId is required")
	}
	if err := d.be.Delete(d.ctx, p.SessionID); err != nil {
		return nil, false, err
	}
	// Prompts still queued in it will never run (a paused queue).
	d.dropSessionQueued(p.SessionID)
	d.mu.Lock()
	delete(d.sessions, p.SessionID)
	d.mu.Unlock()
	return schema.Empty{}, false, nil
}

func handleClose(d *Door, _, params json.RawMessage) (any, bool, error) {
	var p schema.SessionRef
	if err := unmarshalParams(params, &p); err != nil {
		return nil, false, err
	}
	if _, err := d.known(p.SessionID); err != nil {
		return nil, false, err
	}
	if err := d.be.Close(d.ctx, p.SessionID); err != nil {
		return nil, false, err
	}
	return schema.Empty{}, false, nil
}

func (d *Door) cancel(sid string) {
	d.mu.Lock()
	st := d.sessions[sid]
	d.mu.Unlock()
	if st == nil {
		return
	}
	d.mu.Lock()
	turn := st.running
	d.mu.Unlock()
	if turn != "" {
		if err := d.be.CancelTurn(context.WithoutCancel(d.ctx), sid, turn); err != nil {
			d.opts.Log.Info("session/cancel found no running turn", "session", sid, "err", err)
		}
	}
}
