package schema

import "scv/runtime/session"

// Error codes: the data.code strings of refused requests. The runtime's
// refusal kinds are their source, so the two can never disagree; the
// rest are the transport's own.
const (
	CodeSessionNotFound       = string(session.CodeSessionNotFound)
	CodeTurnNotFound          = string(session.CodeTurnNotFound)
	CodeTurnActive            = string(session.CodeTurnActive)
	CodeQueueNotFound         = string(session.CodeQueueNotFound)
	CodeQueueConflict         = string(session.CodeQueueConflict)
	CodeQueueLimit            = string(session.CodeQueueLimit)
	CodeApprovalNotFound      = string(session.CodeApprovalNotFound)
	CodeInvalidPrompt         = string(session.CodeInvalidPrompt)
	CodeInvalidCwd            = string(session.CodeInvalidCwd)
	CodeProviderNotConfigured = string(session.CodeProviderNotConfigured)
	CodeUnsupported           = string(session.CodeUnsupported)
	CodeTooManySessions       = string(session.CodeTooManySessions)
	CodeSessionOwned          = string(session.CodeSessionOwned)
	CodeStoreFailed           = string(session.CodeStoreFailed)
	CodeSessionTooLarge       = string(session.CodeSessionTooLarge)

	CodeVersionMismatch    = "version_mismatch"
	CodeFrameTooLarge      = "frame_too_large"
	CodeTooManyRequests    = "too_many_requests"
	CodeResponseLimit      = "response_limit"
	CodeTooManyConnections = "too_many_connections"
)

// ErrorData is the data member of an application error.
type ErrorData struct {
	Code string `json:"code"`
}
