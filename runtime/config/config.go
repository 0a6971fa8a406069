// Package config loads scv's TOML configuration: the user's file, then the
// project's, then session parameters, then command-line flags.
package config

// Config is the merged configuration of one session (or of the server, for
// the protocol section).
type Config struct {
	Provider Provider `toml:"provider"`
	Agent    Agent    `toml:"agent"`
	Tools    Tools    `toml:"tools"`
	Context  Context  `toml:"context"`
	Protocol Protocol `toml:"protocol"`
	Skills   Skills   `toml:"skills"`
	Daemon   Daemon   `toml:"daemon"`
	// MCPServers are the MCP servers whose tools each session offers, by
	// name; only the user's file (or session parameters) may set them.
	MCPServers map[string]MCPServer `toml:"mcp_servers"`
	Sessions   Sessions             `toml:"sessions"`
	// Approvals are the user's standing approvals; only the user's file
	// may set them.
	Approvals Approvals `toml:"approvals"`
	// Checkpoints keep each turn's changes undoable ($SCV_HOME/checkpoints).
	Checkpoints Checkpoints `toml:"checkpoints"`
}

// Approvals lets matching tool calls run without asking, across sessions.
type Approvals struct {
	// Allow are rules: "shell:go test *" (a command's first words; "*"
	// allows more arguments; a command with shell syntax never matches),
	// "edit:docs/**" (files a write or edit may change, as workspace
	// globs). See runtime/approvals.
	Allow []string `toml:"allow"`
}

// Checkpoints bounds the snapshots taken before a turn's first change.
type Checkpoints struct {
	// Enabled takes a checkpoint before each turn's first change.
	Enabled bool `toml:"enabled"`
	// MaxBytes bounds every session's checkpoints together; the oldest
	// sessions' are dropped first.
	MaxBytes int `toml:"max_bytes"`
}

// Provider selects and reaches the model.
type Provider struct {
	Kind    string `toml:"kind"` // "openai" or "replay"
	BaseURL string `toml:"base_url"`
	Model   string `toml:"model"`
	// Models are more model ids offered by scv/model/list (a model
	// picker) besides Model; the provider's own list is added when it
	// answers.
	Models         []string          `toml:"models"`
	APIKey         string            `toml:"api_key"`
	APIKeyEnv      string            `toml:"api_key_env"`
	Headers        map[string]string `toml:"headers"`
	TimeoutSeconds int               `toml:"timeout_seconds"`
	MaxRetries     int               `toml:"max_retries"`
	ReplayScript   string            `toml:"replay_script"` // empty: the embedded demo script
	// MaxResponseBytes bounds one model response (text and tool calls);
	// MaxToolCallBytes the arguments of one tool call. A response past
	// either fails the turn with response_limit.
	MaxResponseBytes int `toml:"max_response_bytes"`
	MaxToolCallBytes int `toml:"max_tool_call_bytes"`
}

// Agent shapes the turn loop.
type Agent struct {
	MaxSteps       int    `toml:"max_steps"`
	ApprovalPolicy string `toml:"approval_policy"`
	SystemPrompt   string `toml:"system_prompt"`
}

// Tools bounds tool runs.
type Tools struct {
	// Enabled offers the tools to the model; false (or noTools at session
	// start) makes a chat-only session.
	Enabled             bool  `toml:"enabled"`
	MaxReadBytes        int   `toml:"max_read_bytes"`
	MaxOutputBytes      int   `toml:"max_output_bytes"`
	ShellTimeoutSeconds int   `toml:"shell_timeout_seconds"`
	MaxGrepMatches      int   `toml:"max_grep_matches"`
	Shell               Shell `toml:"shell"`
}

// Shell adjusts which of scv's environment variables a shell command sees.
// The provider's key is never passed, whatever these say.
type Shell struct {
	// EnvAllow re-admits variables hidden because their name or value
	// looks like a credential (names or globs). Only the user may set it.
	EnvAllow []string `toml:"env_allow"`
	// EnvDeny hides more variables (names or globs). A project file's
	// list is added to the user's.
	EnvDeny []string `toml:"env_deny"`
}

// Context bounds the history sent to the model.
type Context struct {
	MaxTokens int `toml:"max_tokens"`
}

// Protocol bounds the wire.
type Protocol struct {
	MaxClientFrameBytes int `toml:"max_client_frame_bytes"`
	MaxServerFrameBytes int `toml:"max_server_frame_bytes"`
	OutboundQueueBytes  int `toml:"outbound_queue_bytes"`
	MaxInflightRequests int `toml:"max_inflight_requests"`
	// MaxProcessOutboundBytes bounds what all connections of one process
	// have queued for their clients together (see internal/outbudget).
	MaxProcessOutboundBytes int `toml:"max_process_outbound_bytes"`
}

// Skills controls skill discovery.
type Skills struct {
	Enabled bool `toml:"enabled"`
}

// Daemon shapes the shared daemon.
type Daemon struct {
	SessionIdleMinutes int `toml:"session_idle_minutes"`
	// MaxSessions caps the sessions one server holds open at once (the
	// daemon, or one `scv lsp` serving in-process).
	MaxSessions int `toml:"max_sessions"`
}

// Sessions is the retention of stored sessions ($SCV_HOME/sessions),
// applied by the daemon at start and then daily.
type Sessions struct {
	// MaxCount keeps at most this many stored sessions, the newest.
	MaxCount int `toml:"max_count"`
	// MaxAgeDays removes sessions not updated for longer.
	MaxAgeDays int `toml:"max_age_days"`
	// MaxLogBytes bounds one session's file (at most store.MaxLogBytes,
	// what a load accepts); past 80 % of it a session takes no new prompt.
	MaxLogBytes int `toml:"max_log_bytes"`
}
