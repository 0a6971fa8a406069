package mcp

// State is where one server is in its life.
type State string

const (
	// StateStarting: the process is starting or the handshake is under way.
	StateStarting State = "starting"
	// StateReady: the handshake and the tool list succeeded; its tools are offered.
	StateReady State = "ready"
	// StateFailed: it could not start, or it exited; its tools are withdrawn
	// and the status's error says why.
	StateFailed State = "failed"
	// StateStopped: it is disabled in the configuration, or the session closed.
	StateStopped State = "stopped"
)

// ServerStatus is one server as scv/mcp/list reports it.
type ServerStatus struct {
	Name      string
	Transport string // "stdio" or "http"
	State     State
	// Error says why the server failed, or (for a ready one) which of its
	// tools were dropped and why; empty otherwise.
	Error string
	Tools []ToolInfo
}

// ToolInfo names one offered tool.
type ToolInfo struct {
	Name        string // as the model sees it: mcp__SERVER__TOOL
	Tool        string // as the server names it
	Description string
}
