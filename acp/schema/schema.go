// Package schema is the Agent Client Protocol (ACP v1) as Go values: the
// method names, the params and results scv reads and writes, and the
// discriminator strings of session updates. The acp door and its tests
// spell ACP only through it.
package schema

import "encoding/json"

// ProtocolVersion is the ACP major version scv speaks.
const ProtocolVersion = 1

// Methods an ACP client calls on the agent.
const (
	MethodInitialize       = "initialize"
	MethodAuthenticate     = "authenticate"
	MethodSessionNew       = "session/new"
	MethodSessionLoad      = "session/load"
	MethodSessionResume    = "session/resume"
	MethodSessionList      = "session/list"
	MethodSessionClose     = "session/close"
	MethodSessionDelete    = "session/delete"
	MethodSessionPrompt    = "session/prompt"
	MethodSessionCancel    = "session/cancel" // a notification
	MethodSessionSetMode   = "session/set_mode"
	MethodSessionSetConfig = "session/set_config_option"
	MethodCancelRequest    = "$/cancel_request" // a notification, both ways
)

// Methods the agent calls on the client.
const (
	MethodSessionUpdate     = "session/update" // a notification
	MethodRequestPermission = "session/request_permission"
)

// JSON-RPC error codes ACP uses.
const (
	CodeParseError       = -32700
	CodeInvalidRequest   = -32600
	CodeMethodNotFound   = -32601
	CodeInvalidParams    = -32602
	CodeInternalError    = -32603
	CodeRequestCancelled = -32800
	CodeResourceNotFound = -32002
)

// Session update kinds (the sessionUpdate discriminator).
const (
	UpdateUserMessageChunk  = "user_message_chunk"
	UpdateAgentMessageChunk = "agent_message_chunk"
	UpdateToolCall          = "tool_call"
	UpdateToolCallUpdate    = "tool_call_update"
	UpdateCurrentMode       = "current_mode_update"
	UpdateConfigOption      = "config_option_update"
	UpdateSessionInfo       = "session_info_update"
	UpdateUsage             = "usage_update"
	UpdateAgentThought      = "agent_thought_chunk"
	UpdatePlan              = "plan"
)

// Stop reasons of a prompt turn.
const (
	StopEndTurn         = "end_turn"
	StopCancelled       = "cancelled"
	StopMaxTurnRequests = "max_turn_requests"
)

// Tool call kinds and statuses.
const (
	KindRead    = "read"
	KindEdit    = "edit"
	KindSearch  = "search"
	KindExecute = "execute"
	KindOther   = "other"

	StatusPending    = "pending"
	StatusInProgress = "in_progress"
	StatusCompleted  = "completed"
	StatusFailed     = "failed"
)

// Permission option kinds.
const (
	AllowOnce   = "allow_once"
	AllowAlways = "allow_always"
	RejectOnce  = "reject_once"
)

// Implementation names a program (agentInfo, clientInfo).
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// InitializeParams is what scv reads of initialize.
type InitializeParams struct {
	ProtocolVersion    *int               `json:"protocolVersion"`
	ClientCapabilities ClientCapabilities `json:"clientCapabilities"`
	ClientInfo         *Implementation    `json:"clientInfo,omitempty"`
}

// ClientCapabilities is what the client offers.
type ClientCapabilities struct {
	FS struct {
		ReadTextFile  bool `json:"readTextFile"`
		WriteTextFile bool `json:"writeTextFile"`
	} `json:"fs"`
	Terminal bool `json:"terminal"`
	Session  *struct {
		Notices *Empty `json:"notices"`
	} `json:"session"`
}

// InitializeResult answers initialize.
type InitializeResult struct {
	ProtocolVersion   int               `json:"protocolVersion"`
	AgentCapabilities AgentCapabilities `json:"agentCapabilities"`
	AgentInfo         Implementation    `json:"agentInfo"`
	AuthMethods       []any             `json:"authMethods"`
	Meta              *InitializeMeta   `json:"_meta,omitempty"`
}

// InitializeMeta is scv's part of the initialize answer's _meta.
type InitializeMeta struct {
	SCV Limits `json:"scv"`
}

// Limits are the bounds of what the door sends that a client may want to
// know (docs/acp.md).
type Limits struct {
	// LiveOutputBytes bounds the output a running shell call's live
	// update shows (acp.MaxLiveOutputBytes).
	LiveOutputBytes int `json:"liveOutputBytes"`
	// LiveOutputCalls bounds the running calls a connection keeps live
	// output for (acp.MaxLiveCalls).
	LiveOutputCalls int `json:"liveOutputCalls"`
	// ToolOutputIntervalMs is the shortest time between two live updates
	// of one call (tools.OutputInterval).
	ToolOutputIntervalMs int `json:"toolOutputIntervalMs"`
}

// AgentCapabilities is what scv offers.
type AgentCapabilities struct {
	LoadSession         bool                `json:"loadSession"`
	PromptCapabilities  PromptCapabilities  `json:"promptCapabilities"`
	McpCapabilities     McpCapabilities     `json:"mcpCapabilities"`
	SessionCapabilities SessionCapabilities `json:"sessionCapabilities"`
}

// PromptCapabilities lists the content blocks a prompt may hold besides text and resource_link.
type PromptCapabilities struct {
	Image           bool `json:"image"`
	Audio           bool `json:"audio"`
	EmbeddedContext bool `json:"embeddedContext"`
}

// McpCapabilities lists the MCP transports scv connects to.
type McpCapabilities struct {
	HTTP bool `json:"http"`
	SSE  bool `json:"sse"`
}

// Empty is an object with no members.
type Empty struct{}

// SessionCapabilities lists the optional session methods; a nil member is absent.
type SessionCapabilities struct {
	List   *Empty `json:"list,omitempty"`
	Resume *Empty `json:"resume,omitempty"`
	Close  *Empty `json:"close,omitempty"`
	Delete *Empty `json:"delete,omitempty"`
}

// SessionNewParams is session/new.
type SessionNewParams struct {
	Cwd        string            `json:"cwd"`
	McpServers []json.RawMessage `json:"mcpServers"`
}

// SessionRef names a session: session/cancel, session/close.
type SessionRef struct {
	SessionID string `json:"sessionId"`
}

// SessionLoadParams is session/load and session/resume.
type SessionLoadParams struct {
	SessionID  string            `json:"sessionId"`
	Cwd        string            `json:"cwd"`
	McpServers []json.RawMessage `json:"mcpServers"`
}

// SessionSetup answers session/new, session/load and session/resume.
type SessionSetup struct {
	SessionID string `json:"sessionId,omitempty"`
	// Modes is absent when the backend cannot tell the session's mode: the
	// schema wants a full mode state or none.
	Modes         *ModeState     `json:"modes,omitempty"`
	ConfigOptions []ConfigOption `json:"configOptions"`
}

// ModeState is the older modes field.
type ModeState struct {
	CurrentModeID  string `json:"currentModeId"`
	AvailableModes []Mode `json:"availableModes"`
}

// Mode is one session mode.
type Mode struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// ConfigOption is one select of a session's configuration.
type ConfigOption struct {
	ID           string         `json:"id"`
	Name         string         `json:"name"`
	Category     string         `json:"category,omitempty"`
	Type         string         `json:"type"`
	CurrentValue string         `json:"currentValue"`
	Options      []SelectOption `json:"options"`
}

// SelectOption is one value of a select.
type SelectOption struct {
	Value       string `json:"value"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// SetModeParams is session/set_mode.
type SetModeParams struct {
	SessionID string `json:"sessionId"`
	ModeID    string `json:"modeId"`
}

// SetConfigParams is session/set_config_option.
type SetConfigParams struct {
	SessionID string          `json:"sessionId"`
	ConfigID  string          `json:"configId"`
	Value     json.RawMessage `json:"value"`
}

// SetConfigResult answers session/set_config_option.
type SetConfigResult struct {
	ConfigOptions []ConfigOption `json:"configOptions"`
}

// SessionListParams is session/list.
type SessionListParams struct {
	Cwd    *string `json:"cwd"`
	Cursor *string `json:"cursor"`
}

// SessionListResult answers session/list.
type SessionListResult struct {
	Sessions   []SessionInfo `json:"sessions"`
	NextCursor *string       `json:"nextCursor,omitempty"`
}

// SessionInfo is one row of session/list.
type SessionInfo struct {
	SessionID string `json:"sessionId"`
	Cwd       string `json:"cwd"`
	Title     string `json:"title,omitempty"`
	UpdatedAt string `json:"updatedAt,omitempty"`
}

// PromptParams is session/prompt.
type PromptParams struct {
	SessionID string         `json:"sessionId"`
	Prompt    []ContentBlock `json:"prompt"`
}

// ContentBlock is one block of a prompt or an update; scv reads text,
// resource_link and resource.
type ContentBlock struct {
	Type     string            `json:"type"`
	Text     string            `json:"text,omitempty"`
	URI      string            `json:"uri,omitempty"`
	Name     string            `json:"name,omitempty"`
	Resource *ResourceContents `json:"resource,omitempty"`
}

// ResourceContents is an embedded resource; scv reads text resources.
type ResourceContents struct {
	URI  string  `json:"uri"`
	Text *string `json:"text,omitempty"`
	Blob *string `json:"blob,omitempty"`
}

// PromptResult answers session/prompt.
type PromptResult struct {
	StopReason string `json:"stopReason"`
}

// CancelRequestParams is $/cancel_request.
type CancelRequestParams struct {
	RequestID json.RawMessage `json:"requestId"`
}

// PermissionParams is session/request_permission.
type PermissionParams struct {
	SessionID string             `json:"sessionId"`
	ToolCall  ToolCallUpdate     `json:"toolCall"`
	Options   []PermissionOption `json:"options"`
}

// PermissionOption is one answer the client may pick.
type PermissionOption struct {
	OptionID string `json:"optionId"`
	Name     string `json:"name"`
	Kind     string `json:"kind"`
}

// PermissionResult answers session/request_permission.
type PermissionResult struct {
	Outcome struct {
		Outcome  string `json:"outcome"`
		OptionID string `json:"optionId"`
	} `json:"outcome"`
}
