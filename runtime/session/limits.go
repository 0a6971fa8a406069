package session

import (
	"time"

	"scv/runtime/config"
	"scv/runtime/provider"
	"scv/runtime/tools"
)

// Protocol limits that are part of the contract rather than configuration.
const (
	MaxPromptBytes = 256 * 1024
	MaxQueueItems  = 64
	MaxQueueBytes  = 4 * 1024 * 1024
	ReplayEvents   = 1024
	// ReplayBytes bounds the bytes of a session's replay ring besides
	// its ReplayEvents count.
	ReplayBytes = 32 << 20
	// MaxOldTextBytes bounds the text a write_file proposal carries of the
	// file it would replace (tool.proposed's oldText), so a window can show
	// the change before it is approved; a larger file is left out.
	MaxOldTextBytes = 256 << 10
	// TurnFailedResponseLimit is the turn/failed code when an event of the
	// turn cannot be sent because it exceeds the server frame limit, or the
	// model's response exceeds provider.max_response_bytes or
	// provider.max_tool_call_bytes.
	TurnFailedResponseLimit = string(provider.CodeResponseLimit)
	// frameOverheadBytes covers the JSON-RPC envelope and header around an
	// event's params when checking them against the server frame limit.
	frameOverheadBytes = 128
)

// Limits is what initialize and every Snapshot advertise.
type Limits struct {
	MaxPromptBytes      int `json:"maxPromptBytes"`
	MaxQueueItems       int `json:"maxQueueItems"`
	MaxQueueBytes       int `json:"maxQueueBytes"`
	MaxClientFrameBytes int `json:"maxClientFrameBytes"`
	MaxServerFrameBytes int `json:"maxServerFrameBytes"`
	ReplayEvents        int `json:"replayEvents"`
	ReplayBytes         int `json:"replayBytes"`
	MaxInflightRequests int `json:"maxInflightRequests"`
	OutboundQueueBytes  int `json:"outboundQueueBytes"`
	// MaxProcessOutboundBytes is what all connections of the serving
	// process may have queued together (protocol.max_process_outbound_bytes).
	MaxProcessOutboundBytes int `json:"maxProcessOutboundBytes"`
	MaxConnections          int `json:"maxConnections,omitempty"`
	MaxSessions             int `json:"maxSessions"`
	MaxOldTextBytes         int `json:"maxOldTextBytes"`
	// MaxLogBytes bounds one stored session's file
	// (sessions.max_log_bytes); past 80 % a session takes no new prompt.
	MaxLogBytes int64 `json:"maxLogBytes"`
	// What one model response may hold (provider.Limits).
	MaxResponseBytes int `json:"maxResponseBytes"`
	MaxToolCallBytes int `json:"maxToolCallBytes"`
	MaxToolCalls     int `json:"maxToolCalls"`
	// ToolOutputIntervalMs is the shortest time between two
	// scv/tool/output chunks of one call (tools.OutputInterval).
	ToolOutputIntervalMs int `json:"toolOutputIntervalMs"`
	// ToolOutputChunkBytes bounds one scv/tool/output chunk
	// (tools.MaxOutputChunkBytes).
	ToolOutputChunkBytes int `json:"toolOutputChunkBytes"`
	// MaxCheckpointBytes is checkpoints.max_bytes, in a session's
	// Snapshot; absent when checkpoints are off.
	MaxCheckpointBytes int `json:"maxCheckpointBytes,omitempty"`
}

// ResponseLimits are the bounds of one model response that cfg sets.
func ResponseLimits(cfg config.Config) provider.Limits {
	return provider.Limits{MaxResponseBytes: cfg.Provider.MaxResponseBytes, MaxToolCallBytes: cfg.Provider.MaxToolCallBytes}
}

// WithResponse returns l advertising the response bounds r (and the
// fixed bounds of live tool output, so every Limits built carries them).
func (l Limits) WithResponse(r provider.Limits) Limits {
	r = r.WithDefaults()
	l.MaxResponseBytes = r.MaxResponseBytes
	l.MaxToolCallBytes = r.MaxToolCallBytes
	l.MaxToolCalls = provider.MaxToolCalls
	l.ToolOutputIntervalMs = int(tools.OutputInterval / time.Millisecond)
	l.ToolOutputChunkBytes = tools.MaxOutputChunkBytes
	return l
}
