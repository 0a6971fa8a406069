// Package session holds the agent's sessions: their history, event stream,
// prompt queue, approvals and the turn loop that drives the model and tools.
package session

import (
	"errors"
	"fmt"
)

// Code is the machine-readable reason of a refused request; the values are
// the wire protocol's data.code strings.
type Code string

const (
	CodeSessionNotFound       Code = "session_not_found"
	CodeTurnNotFound          Code = "turn_not_found"
	CodeTurnActive            Code = "turn_active"
	CodeQueueNotFound         Code = "queue_not_found"
	CodeQueueConflict         Code = "queue_conflict"
	CodeQueueLimit            Code = "queue_limit"
	CodeApprovalNotFound      Code = "approval_not_found"
	CodeInvalidPrompt         Code = "invalid_prompt"
	CodeInvalidCwd            Code = "invalid_cwd"
	CodeProviderNotConfigured Code = "provider_not_configured"
	CodeUnsupported           Code = "unsupported"
	CodeTooManySessions       Code = "too_many_sessions"
	// CodeSessionOwned: another scv process (the daemon, or a stdio
	// scv lsp) holds the stored session's writer lock.
	CodeSessionOwned Code = "session_owned"
	// CodeStoreFailed: the change could not be written to the session's
	// file (a full disk) and was not made; retry once there is room.
	CodeStoreFailed Code = "store_failed"
	// CodeSessionTooLarge: the session's file reached its bound
	// (store.Limits.MaxLogBytes); fork the session to go on.
	CodeSessionTooLarge Code = "session_too_large"
	// CodeInvalidParams is not an application code: the server answers it
	// with the standard invalid-params error.
	CodeInvalidParams Code = "invalid_params"
)

// Error is a request the runtime refused, with a message for people and a
// code for programs.
type Error struct {
	Code    Code
	Message string
}

func (e *Error) Error() string { return e.Message }

func errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// CodeOf returns the Code of err, or "" when err is not a refusal.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}
