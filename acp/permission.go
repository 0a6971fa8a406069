package acp

import (
	"context"
	"encoding/json"
	"strconv"

	"scv/acp/schema"
	"scv/runtime/session"
)

// permissionOptions map ACP's answers onto scv's decisions.
var permissionOptions = []schema.PermissionOption{
	{OptionID: session.DecisionApprove, Name: "Allow once", Kind: schema.AllowOnce},
	{OptionID: session.DecisionApproveSession, Name: "Allow for this session", Kind: schema.AllowAlways},
	{OptionID: session.DecisionDeny, Name: "Reject", Kind: schema.RejectOnce},
}

// askPermission sends session/request_permission for an open approval.
func (d *Door) askPermission(sid string, a session.Approval) {
	d.mu.Lock()
	if d.asks[a.ApprovalID] != nil {
		d.mu.Unlock()
		return
	}
	d.nextID++
	q := &ask{reqID: d.nextID, sid: sid, approvalID: a.ApprovalID}
	d.asks[a.ApprovalID] = q
	d.asked[q.reqID] = q
	d.mu.Unlock()
	d.call(q.reqID, schema.MethodRequestPermission, schema.PermissionParams{
		SessionID: sid,
		ToolCall:  schema.ToolCallUpdate{ToolCallID: a.CallID, Title: a.Summary, Kind: kindOf(a.Name), Status: schema.StatusPending},
		Options:   permissionOptions,
	})
}

// withdraw cancels our request for an approval resolved elsewhere (another
// window, or the turn ended).
func (d *Door) withdraw(approvalID string) {
	d.mu.Lock()
	q := d.asks[approvalID]
	if q != nil {
		delete(d.asks, approvalID)
		delete(d.asked, q.reqID)
	}
	d.mu.Unlock()
	if q != nil {
		d.notify(schema.MethodCancelRequest, schema.CancelRequestParams{RequestID: json.RawMessage(strconv.FormatInt(q.reqID, 10))})
	}
}

// handleResponse takes the client's answer to one of our requests.
func (d *Door) handleResponse(id, result, rpcErr json.RawMessage) {
	n, err := strconv.ParseInt(string(id), 10, 64)
	if err != nil {
		return
	}
	if d.answerCall(n, result, rpcErr) {
		return
	}
	d.mu.Lock()
	q := d.asked[n]
	if q != nil {
		delete(d.asked, n)
		delete(d.asks, q.approvalID)
	}
	d.mu.Unlock()
	if q == nil {
		return // withdrawn already, or not ours
	}
	decision := session.DecisionDeny // an error or a cancelled outcome denies
	var r schema.PermissionResult
	if rpcErr == nil && json.Unmarshal(result, &r) == nil && r.Outcome.Outcome == "selected" {
		switch r.Outcome.OptionID {
		case session.DecisionApprove, session.DecisionApproveSession, session.DecisionDeny:
			decision = r.Outcome.OptionID
		}
	}
	// First resolver wins: another window may have answered already.
	if err := d.be.Resolve(context.WithoutCancel(d.ctx), q.sid, q.approvalID, decision); err != nil {
		d.opts.Log.Info("an approval was resolved elsewhere first", "approval", q.approvalID, "err", err)
	}
}
