package acp

import (
	"context"
	"encoding/json"
)

// cancelRequest serves the client's $/cancel_request. Only session/prompt
// is still in flight once its handler returns (session/load answers after
// its replay, which is already queued): a running prompt's turn is
// cancelled and answers cancelled at its end; a queued one leaves the
// queue and answers cancelled at once (through QueueRemoved). Requests
// already answered, or unknown ids, are ignored as JSON-RPC says.
func (d *Door) cancelRequest(id json.RawMessage) {
	if !validID(id) || id == nil {
		return
	}
	d.mu.Lock()
	var turnID, queueID, sid string
	for t, w := range d.byTurn {
		if sameID(w.id, id) {
			turnID, sid = t, w.sid
		}
	}
	for q, w := range d.byQueue {
		if sameID(w.id, id) {
			queueID, sid = q, w.sid
		}
	}
	d.mu.Unlock()
	ctx := context.WithoutCancel(d.ctx)
	switch {
	case turnID != "":
		if err := d.be.CancelTurn(ctx, sid, turnID); err != nil {
			d.opts.Log.Info("$/cancel_request: the turn had ended", "session", sid, "err", err)
		}
	case queueID != "":
		if err := d.be.RemoveQueued(ctx, sid, queueID); err != nil {
			d.opts.Log.Info("$/cancel_request: the prompt had left the queue", "session", sid, "err", err)
		}
	}
}

// sameID compares two JSON-RPC ids by value: 7 and 7.0 are one id.
func sameID(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return x == y
}
