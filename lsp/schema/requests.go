package schema

import (
	"encoding/json"

	"scv/runtime/session"
)

// State values the protocol carries as the runtime defines them.
type (
	Snapshot        = session.Snapshot
	Summary         = session.Summary
	QueueEntry      = session.QueueEntry
	QueueState      = session.QueueState
	Limits          = session.Limits
	Approval        = session.Approval
	ApprovalRequest = session.ApprovalRequest
	ContextItem     = session.ContextItem
	ContextRef      = session.ContextRef
	TurnStartResult = session.TurnStart
	MoveResult      = session.MoveResult
	RemoveResult    = session.RemoveResult
)

// SessionRef is the params of the requests that name only a session
// (detach, close, clear, queue/list), and the start of every other one.
type SessionRef struct {
	SessionID string `json:"sessionId"`
}

// SessionStartParams is the params of scv/session/start.
type SessionStartParams struct {
	Cwd            string `json:"cwd"`
	Model          string `json:"model,omitempty"`
	Provider       string `json:"provider,omitempty"`
	BaseURL        string `json:"baseUrl,omitempty"`
	ApprovalPolicy string `json:"approvalPolicy,omitempty"`
	NoTools        bool   `json:"noTools,omitempty"`
	// MCPServers are MCP servers for this session, by name, each with the
	// members of an [mcp_servers.NAME] table in camelCase (command, args,
	// env, cwd, url, bearerTokenEnvVar, httpHeaders, enabled,
	// startupTimeoutSec, toolTimeoutSec, enabledTools, disabledTools,
	// trust). Each is kept raw so the server can decode it onto the
	// defaults and name a bad member with its server.
	MCPServers map[string]json.RawMessage `json:"mcpServers,omitempty"`
}

// SessionAttachParams is the params of scv/session/attach; AfterSeq nil
// asks for no replay, Replay ReplayFull for the whole stored transcript.
type SessionAttachParams struct {
	SessionID string  `json:"sessionId"`
	AfterSeq  *uint64 `json:"afterSeq,omitempty"`
	Replay    string  `json:"replay,omitempty"`
}

// ReplayFull is the attach replay mode that sends the whole transcript.
const ReplayFull = "full"

// SessionListParams is the params of scv/session/list (all optional).
type SessionListParams struct {
	Cwd    string `json:"cwd,omitempty"`
	Cursor string `json:"cursor,omitempty"`
	Limit  int    `json:"limit,omitempty"`
}

// SessionListResult is the result of scv/session/list.
type SessionListResult struct {
	Sessions   []Summary `json:"sessions"`
	NextCursor string    `json:"nextCursor,omitempty"`
}

// SessionRenameParams is the params of scv/session/rename.
type SessionRenameParams struct {
	SessionID string `json:"sessionId"`
	Title     string `json:"title"`
}

// SessionForkParams is the params of scv/session/fork; TurnID empty forks
// after the last turn that ended.
type SessionForkParams struct {
	SessionID string `json:"sessionId"`
	TurnID    string `json:"turnId,omitempty"`
}

// SessionForkResult is the result of scv/session/fork: the new session.
type SessionForkResult = SessionRef

// SessionPauseParams is the params of scv/session/pause.
type SessionPauseParams struct {
	SessionID string `json:"sessionId"`
	Paused    *bool  `json:"paused"`
}

// SessionPauseResult is the result of scv/session/pause.
type SessionPauseResult struct {
	Paused bool `json:"paused"`
}

// TurnStartParams is the params of scv/turn/start.
type TurnStartParams struct {
	SessionID string        `json:"sessionId"`
	Prompt    *string       `json:"prompt"`
	Context   []ContextItem `json:"context,omitempty"`
	// FileAccess: this connection serves scv/file/read or write for the
	// prompt's turn (see files.go).
	FileAccess *FileAccess `json:"fileAccess,omitempty"`
}

// TurnCancelParams is the params of scv/turn/cancel.
type TurnCancelParams struct {
	SessionID string `json:"sessionId"`
	TurnID    string `json:"turnId"`
}

// TurnSteerParams is the params of scv/turn/steer.
type TurnSteerParams struct {
	SessionID string  `json:"sessionId"`
	TurnID    string  `json:"turnId"`
	Prompt    *string `json:"prompt"`
}

// SessionConfigureParams is the params of scv/session/configure; an
// absent member keeps the session's current value.
type SessionConfigureParams struct {
	SessionID      string `json:"sessionId"`
	Model          string `json:"model,omitempty"`
	ApprovalPolicy string `json:"approvalPolicy,omitempty"`
}

// SessionConfigureResult is the result of scv/session/configure: the
// values in force.
type SessionConfigureResult = session.Configuration

// Models as scv/model/list reports them.
type (
	ModelListResult = session.ModelList
	ModelInfo       = session.ModelInfo
)

// QueueEditParams is the params of scv/queue/update, move and remove:
// Prompt is for update, BeforeQueueID for move.
type QueueEditParams struct {
	SessionID     string  `json:"sessionId"`
	QueueID       string  `json:"queueId"`
	Revision      *uint64 `json:"revision"`
	Prompt        *string `json:"prompt,omitempty"`
	BeforeQueueID string  `json:"beforeQueueId,omitempty"`
}

// QueueUpdateResult is the result of scv/queue/update.
type QueueUpdateResult struct {
	Entry QueueEntry `json:"entry"`
}

// ApprovalResolveParams is the params of scv/approval/resolve.
type ApprovalResolveParams struct {
	SessionID  string `json:"sessionId"`
	ApprovalID string `json:"approvalId"`
	Decision   string `json:"decision"`
	// AllowRule, with decision approve only, is added to the user's
	// [approvals] allow ("shell:go test *"); it must cover the call.
	AllowRule string `json:"allowRule,omitempty"`
}

// ApprovalResolveResult is the result of scv/approval/resolve:
// RuleAddedTo is the config file an AllowRule was written to.
type ApprovalResolveResult struct {
	RuleAddedTo string `json:"ruleAddedTo,omitempty"`
}

// TurnChangesParams is the params of scv/turn/changes; with Path the
// answer holds that file only, with its full texts before and after.
type TurnChangesParams struct {
	SessionID string `json:"sessionId"`
	TurnID    string `json:"turnId"`
	Path      string `json:"path,omitempty"`
}

// TurnRevertParams is the params of scv/turn/revert.
type TurnRevertParams struct {
	SessionID string `json:"sessionId"`
	TurnID    string `json:"turnId"`
	Force     bool   `json:"force,omitempty"`
}

// Results of the checkpoint requests, and their parts.
type (
	TurnChangesResult = session.TurnChangesResult
	FileChange        = session.FileChange
	TurnRevertResult  = session.RevertResult
	RevertConflict    = session.RevertConflict
	FileStat          = session.FileStat
)

// McpListResult is the result of scv/mcp/list.
type McpListResult struct {
	Servers []MCPServerInfo `json:"servers"`
}

// MCP servers as scv/mcp/list reports them.
type (
	MCPServerInfo = session.MCPServerInfo
	MCPToolInfo   = session.MCPToolInfo
)

// SkillListResult is the result of scv/skill/list: the session's skills,
// which a client may offer as commands.
type SkillListResult struct {
	Skills []SkillInfo `json:"skills"`
}

// SkillInfo is one skill: its name (what read_skill takes), its one-line
// description and where it was found ("project" or "user").
type SkillInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Scope       string `json:"scope"`
}

// Empty is the result of requests that answer nothing but success.
type Empty struct{}

// DaemonStatus is the result of scv/daemon/status.
type DaemonStatus struct {
	Mode     string    `json:"mode"`
	PID      int       `json:"pid"`
	Version  string    `json:"version"`
	UptimeMs int64     `json:"uptimeMs"`
	Socket   string    `json:"socket"`
	Clients  int       `json:"clients"`
	Sessions []Summary `json:"sessions"`
}

// Ptr returns a pointer to v, for the optional members above.
func Ptr[T any](v T) *T { return &v }
