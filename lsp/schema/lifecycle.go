package schema

import "scv/runtime/config"

// ProtocolVersion is the major version of the scv protocol.
const ProtocolVersion = 1

// InitializeParams is the part of LSP's initialize params scv reads or
// sends: the scv protocol version travels in initializationOptions.scv.
type InitializeParams struct {
	ProcessID             *int                   `json:"processId"`
	ClientInfo            *ClientInfo            `json:"clientInfo,omitempty"`
	RootURI               *string                `json:"rootUri"`
	Capabilities          struct{}               `json:"capabilities"`
	InitializationOptions *InitializationOptions `json:"initializationOptions,omitempty"`
}

// ClientInfo names the client.
type ClientInfo struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// InitializationOptions is initializationOptions of initialize.
type InitializationOptions struct {
	SCV *ClientOptions `json:"scv,omitempty"`
}

// ClientOptions is initializationOptions.scv.
type ClientOptions struct {
	ProtocolVersion *int `json:"protocolVersion,omitempty"`
	// Flags are the command-line flags of a forwarding `scv lsp`, which it
	// adds to the editor's initialize: they bind every session started on
	// this connection.
	Flags *config.Overrides `json:"flags,omitempty"`
}

// Capabilities is capabilities.experimental.scv of the initialize result.
type Capabilities struct {
	ProtocolVersion  int      `json:"protocolVersion"`
	Methods          []string `json:"methods"`
	Notifications    []string `json:"notifications"`
	Limits           Limits   `json:"limits"`
	ApprovalPolicies []string `json:"approvalPolicies"`
	// ApprovalRuleKinds are the kinds of [approvals] allow rules
	// ("shell", "edit") an allowRule may hold.
	ApprovalRuleKinds []string        `json:"approvalRuleKinds"`
	ModelList         ModelListLimits `json:"modelList"`
	Daemon            bool            `json:"daemon"`
	// ClientRequests are the requests the server may send a client that
	// offers file access; FileRequestTimeoutMs bounds its wait for each
	// answer.
	ClientRequests       []string `json:"clientRequests"`
	FileRequestTimeoutMs int64    `json:"fileRequestTimeoutMs"`
}

// ModelListLimits says how scv/model/list asks the provider: within
// TimeoutMs, its answer kept CacheSeconds per base URL.
type ModelListLimits struct {
	TimeoutMs    int64 `json:"timeoutMs"`
	CacheSeconds int64 `json:"cacheSeconds"`
}

// ServerInfo names the server in the initialize result.
type ServerInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// InitializeResult is the part of the initialize result scv defines.
type InitializeResult struct {
	Capabilities struct {
		Experimental struct {
			SCV Capabilities `json:"scv"`
		} `json:"experimental"`
	} `json:"capabilities"`
	ServerInfo ServerInfo `json:"serverInfo"`
}
