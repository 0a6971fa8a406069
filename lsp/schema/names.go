// Package schema is the scv wire protocol as Go values: every scv/* method
// and notification name, their params and results, and the data.code
// strings of refused requests. The server (lsp), its clients (lsp/client,
// lsp/headless, bridge, cmd) and the tests name the protocol only through
// it, so a rename is one edit and a typo does not compile.
//
// The shapes of session state (snapshots, queue entries, approvals,
// limits) are the runtime's own values: the schema names them so a client
// imports one package, and the runtime never imports the schema.
package schema

// Namespace starts every scv method and notification name.
const Namespace = "scv/"

// Requests a client sends.
const (
	MethodSessionStart     = "scv/session/start"
	MethodSessionAttach    = "scv/session/attach"
	MethodSessionDetach    = "scv/session/detach"
	MethodSessionList      = "scv/session/list"
	MethodSessionClose     = "scv/session/close"
	MethodSessionClear     = "scv/session/clear"
	MethodSessionPause     = "scv/session/pause"
	MethodSessionRename    = "scv/session/rename"
	MethodSessionDelete    = "scv/session/delete"
	MethodSessionFork      = "scv/session/fork"
	MethodTurnStart        = "scv/turn/start"
	MethodTurnCancel       = "scv/turn/cancel"
	MethodQueueList        = "scv/queue/list"
	MethodQueueUpdate      = "scv/queue/update"
	MethodQueueMove        = "scv/queue/move"
	MethodQueueRemove      = "scv/queue/remove"
	MethodApprovalResolve  = "scv/approval/resolve"
	MethodDaemonStatus     = "scv/daemon/status"
	MethodMcpList          = "scv/mcp/list"
	MethodTurnSteer        = "scv/turn/steer"
	MethodSessionConfigure = "scv/session/configure"
	MethodModelList        = "scv/model/list"
	MethodSkillList        = "scv/skill/list"
	MethodTurnChanges      = "scv/turn/changes"
	MethodTurnRevert       = "scv/turn/revert"
)

// Methods lists every request above; initialize advertises exactly these
// (lsp's method table is checked against it).
var Methods = []string{
	MethodSessionStart, MethodSessionAttach, MethodSessionDetach, MethodSessionList,
	MethodSessionClose, MethodSessionClear, MethodSessionPause, MethodSessionRename,
	MethodSessionDelete, MethodSessionFork, MethodTurnStart, MethodTurnCancel,
	MethodQueueList, MethodQueueUpdate, MethodQueueMove, MethodQueueRemove, MethodApprovalResolve,
	MethodDaemonStatus, MethodMcpList, MethodTurnSteer, MethodSessionConfigure, MethodModelList, MethodSkillList, MethodTurnChanges, MethodTurnRevert,
}

// Notifications the server sends.
const (
	EvTurnStarted        = "scv/turn/started"
	EvAssistantDelta     = "scv/assistant/delta"
	EvAssistantCompleted = "scv/assistant/completed"
	EvToolProposed       = "scv/tool/proposed"
	EvToolStarted        = "scv/tool/started"
	EvToolCompleted      = "scv/tool/completed"
	EvApprovalRequested  = "scv/approval/requested"
	EvApprovalResolved   = "scv/approval/resolved"
	EvContextCompacted   = "scv/context/compacted"
	EvTurnCompleted      = "scv/turn/completed"
	EvTurnCancelled      = "scv/turn/cancelled"
	EvTurnFailed         = "scv/turn/failed"
	EvQueueSnapshot      = "scv/queue/snapshot"
	EvQueueEnqueued      = "scv/queue/enqueued"
	EvQueueUpdated       = "scv/queue/updated"
	EvQueueMoved         = "scv/queue/moved"
	EvQueueRemoved       = "scv/queue/removed"
	EvQueueDequeued      = "scv/queue/dequeued"
	EvSessionPaused      = "scv/session/paused"
	EvSessionCleared     = "scv/session/cleared"
	EvSessionClosed      = "scv/session/closed"
	EvSessionRenamed     = "scv/session/renamed"
	EvSessionRestored    = "scv/session/restored"
	EvMcpStatus          = "scv/mcp/status"
	EvTurnSteered        = "scv/turn/steered"
	EvSessionConfigured  = "scv/session/configured"
	// Issue 12: reasoning, live tool output, plan and usage.
	EvAssistantReasoning = "scv/assistant/reasoning"
	EvToolOutput         = "scv/tool/output"
	EvPlanUpdated        = "scv/plan/updated"
	EvSessionUsage       = "scv/session/usage"
	// EvTurnChanges shares its name with the request MethodTurnChanges:
	// the event lists a turn's files, the request their diffs.
	EvTurnChanges  = MethodTurnChanges
	EvTurnReverted = "scv/turn/reverted"
	// Per-connection notifications: no seq of their own, never replayed.
	EvSessionLagged = "scv/session/lagged"
	EvSessionGap    = "scv/session/gap"
)

// Notifications lists every notification above, in the order the protocol
// page documents them; initialize advertises it.
var Notifications = []string{
	EvTurnStarted, EvAssistantDelta, EvAssistantCompleted, EvToolProposed, EvToolStarted,
	EvToolCompleted, EvApprovalRequested, EvApprovalResolved, EvContextCompacted,
	EvTurnCompleted, EvTurnCancelled, EvTurnFailed, EvQueueSnapshot, EvQueueEnqueued,
	EvQueueUpdated, EvQueueMoved, EvQueueRemoved, EvQueueDequeued, EvSessionPaused,
	EvSessionCleared, EvSessionClosed, EvSessionRenamed, EvSessionRestored, EvMcpStatus,
	EvTurnSteered, EvSessionConfigured, EvAssistantReasoning, EvToolOutput, EvPlanUpdated, EvSessionUsage,
	EvTurnChanges, EvTurnReverted,
	EvSessionLagged, EvSessionGap,
}

// IsTerminal reports whether a notification ends a turn.
func IsTerminal(method string) bool {
	switch method {
	case EvTurnCompleted, EvTurnCancelled, EvTurnFailed:
		return true
	}
	return false
}
