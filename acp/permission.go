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
		ToolCall:  permissionToolCall(a),
		Options:   permissionOptions,
	})
}

// heldRuleCaveat follows a held rule's notice: the notice speaks of an
// "Always allow" with the rule, which ACP does not have, and ACP's
// allow_always answer must not be taken for it.
const heldRuleCaveat = `This client cannot confirm it: "Allow for this session" approves this tool for this session only and leaves the rule unconfirmed.`

// permissionToolCall is the tool call a permission request shows. A
// request with a notice (a rule of the user's file held for confirmation)
// carries it as the call's content, so the user reads it before answering;
// for an edit that replaces the diff content, but the title still holds
// the diff.
func permissionToolCall(a session.Approval) schema.ToolCallUpdate {
	u := schema.ToolCallUpdate{ToolCallID: a.CallID, Title: a.Summary, Kind: kindOf(a.Name), Status: schema.StatusPending}
	if a.Notice != "" {
		text := schema.Text(a.Notice + "\n\n" + heldRuleCaveat)
		u.Content = []schema.ToolCallContent{{Type: "content", Content: &text}}
	}
	return u
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
