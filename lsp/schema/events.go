package schema

import "scv/runtime/session"

// EventHeader starts the params of every session notification.
type EventHeader struct {
	SessionID string `json:"sessionId"`
	Seq       uint64 `json:"seq"`
}

// Params of the session notifications: the header, then the runtime
// event's members.
type (
	TurnStartedParams struct {
		EventHeader
		session.TurnStarted
	}
	AssistantDeltaParams struct {
		EventHeader
		session.AssistantDelta
	}
	AssistantCompletedParams struct {
		EventHeader
		session.AssistantCompleted
	}
	ToolProposedParams struct {
		EventHeader
		session.ToolProposed
	}
	ToolStartedParams struct {
		EventHeader
		session.ToolStarted
	}
	ToolCompletedParams struct {
		EventHeader
		session.ToolCompleted
	}
	ApprovalRequestedParams = ApprovalRequest
	ApprovalResolvedParams  struct {
		EventHeader
		session.ApprovalResolved
	}
	ContextCompactedParams struct {
		EventHeader
		session.ContextCompacted
	}
	TurnCompletedParams struct {
		EventHeader
		session.TurnCompleted
	}
	TurnCancelledParams struct {
		EventHeader
		session.TurnCancelled
	}
	TurnFailedParams struct {
		EventHeader
		session.TurnFailed
	}
	QueueSnapshotParams struct {
		EventHeader
		session.QueueState
	}
	QueueEnqueuedParams struct {
		EventHeader
		session.QueueEnqueued
	}
	QueueUpdatedParams struct {
		EventHeader
		session.QueueUpdated
	}
	QueueMovedParams struct {
		EventHeader
		session.MoveResult
	}
	QueueRemovedParams struct {
		EventHeader
		session.RemoveResult
	}
	QueueDequeuedParams struct {
		EventHeader
		session.QueueDequeued
	}
	SessionPausedParams struct {
		EventHeader
		session.SessionPaused
	}
	SessionRenamedParams struct {
		EventHeader
		session.SessionRenamed
	}
	SessionRestoredParams struct {
		EventHeader
		session.SessionRestored
	}
	McpStatusParams struct {
		EventHeader
		session.McpStatus
	}
	TurnSteeredParams struct {
		EventHeader
		session.TurnSteered
	}
	SessionConfiguredParams struct {
		EventHeader
		session.SessionConfigured
	}
	AssistantReasoningParams struct {
		EventHeader
		session.AssistantReasoning
	}
	ToolOutputParams struct {
		EventHeader
		session.ToolOutput
	}
	PlanUpdatedParams struct {
		EventHeader
		session.PlanUpdated
	}
	SessionUsageParams struct {
		EventHeader
		session.SessionUsage
	}
	TurnChangesEventParams struct {
		EventHeader
		session.TurnChanges
	}
	TurnRevertedParams struct {
		EventHeader
		session.TurnReverted
	}
)

// SessionLaggedParams is the params of scv/session/lagged: this
// connection missed events of the session and should re-attach.
type SessionLaggedParams struct {
	SessionID string `json:"sessionId"`
	Missed    uint64 `json:"missed"`
}

// SessionGapParams is the params of scv/session/gap: the replay asked for
// starts later than afterSeq+1.
type SessionGapParams struct {
	SessionID         string `json:"sessionId"`
	FirstAvailableSeq uint64 `json:"firstAvailableSeq"`
}
