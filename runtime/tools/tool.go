// Package tools holds the tools the agent can run inside a workspace.
package tools

import (
	"context"
	"encoding/json"
	"time"
)

// Risk says what a tool can do; approval policies decide by it.
type Risk string

const (
	RiskReadOnly Risk = "read-only"
	RiskWrite    Risk = "write"
	RiskExec     Risk = "exec"
	RiskNetwork  Risk = "network"
	// RiskMCP is every tool of an MCP server: what it does is the
	// server's, not scv's, to know, whatever its annotations claim.
	RiskMCP Risk = "mcp"
)

// Result is what a tool run returns to the model. Output is always valid UTF-8.
type Result struct {
	Success   bool   `json:"success"`
	Output    string `json:"output"`
	Truncated bool   `json:"truncated"`
}

// Tool is one capability offered to the model.
type Tool interface {
	Name() string
	Description() string
	// Parameters is the JSON schema of the arguments object.
	Parameters() json.RawMessage
	Risk() Risk
	// Summary describes a call for an approval prompt; edits include a
	// unified diff of the change they would make.
	Summary(args json.RawMessage) string
	// Run executes the call. Failures (bad arguments, paths outside the
	// workspace, I/O errors) come back as Result{Success:false}, never panics.
	Run(ctx context.Context, args json.RawMessage) Result
}

// Replacer is a tool whose calls replace a file's whole text (write_file).
// ReplacedText returns the text a call would replace, read from the disk
// inside the workspace; false when the call is malformed, the file does
// not exist, is binary or holds more than max bytes.
type Replacer interface {
	ReplacedText(args json.RawMessage, max int) (string, bool)
}

// Limits bound what tools read and return.
type Limits struct {
	MaxReadBytes   int
	MaxOutputBytes int
	ShellTimeout   time.Duration
	MaxGrepMatches int
}
