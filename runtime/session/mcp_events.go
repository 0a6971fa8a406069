package session

// McpStatus says that one MCP server of the session changed state:
// starting, ready, failed or stopped (see runtime/mcp). Error says why a
// server failed or, for a ready one, which of its tools were dropped.
type McpStatus struct {
	Name  string `json:"name"`
	State string `json:"state"`
	Error string `json:"error,omitempty"`
}

func (McpStatus) isPayload() {}

// MCPServerInfo is one server as scv/mcp/list reports it.
type MCPServerInfo struct {
	Name      string        `json:"name"`
	Transport string        `json:"transport"`
	State     string        `json:"state"`
	Error     string        `json:"error,omitempty"`
	Tools     []MCPToolInfo `json:"tools"`
}

// MCPToolInfo is one tool a ready server offers: Name as the model and
// the tool events see it (mcp__SERVER__TOOL), Tool as the server names it.
type MCPToolInfo struct {
	Name        string `json:"name"`
	Tool        string `json:"tool"`
	Description string `json:"description"`
}
