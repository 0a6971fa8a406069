package schema

// The durable-session wire the CLI (cli/sessions, lsp/headless) speaks
// ahead of the server: scv/session/delete, full replay, list filters and
// the stored-session events. The server side defines the same names when
// it lands; these declarations then collide with its own and this file is
// deleted, so the CLI compiles against the server's definitions.
//
// None of these names is in Methods or Notifications: the server does not
// advertise them yet, and the CLI checks initialize's methods before it
// relies on one.

// Requests of stored sessions.
const (
	MethodSessionDelete = "scv/session/delete"
)

// Notifications of stored sessions.
const (
	EvSessionRenamed  = "scv/session/renamed"
	EvSessionRestored = "scv/session/restored"
)

// CodeSessionOwned refuses a request on a session another scv process
// owns (its writer lock is held elsewhere).
const CodeSessionOwned = "session_owned"

// ReplayFull is SessionAttachParams' replay value that asks for the whole
// transcript, from the session's file, instead of the ring after afterSeq.
const ReplayFull = "full"

// SessionListParams is the params of scv/session/list: every member is an
// optional filter or paging position.
type SessionListParams struct {
	Cwd    string `json:"cwd,omitempty"`
	Cursor string `json:"cursor,omitempty"`
	Limit  int    `json:"limit,omitempty"`
}

// SessionAttachReplayParams is SessionAttachParams with the replay member
// of stored sessions; a server without it ignores Replay and replays the
// ring after AfterSeq.
type SessionAttachReplayParams struct {
	SessionAttachParams
	Replay string `json:"replay,omitempty"`
}
