// Package provider talks to chat-completion models: any OpenAI-compatible
// endpoint over streaming HTTP, or a replay script for offline use.
package provider

import (
	"context"
	"encoding/json"
	"fmt"
)

// Role is the author of a message in the conversation history.
type Role string

const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// ToolCall is one function call the model asked for. Arguments is JSON text.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Message is one entry of the conversation history.
type Message struct {
	Role       Role       `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`
	ToolCallID string     `json:"toolCallId,omitempty"`
}

// ToolSpec describes a tool the model may call. Parameters is a JSON schema.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Request is one chat completion.
type Request struct {
	Model    string
	Messages []Message
	Tools    []ToolSpec
	Limits   Limits // bounds the assembled Response
	// OnReasoning receives the reasoning text a model streams beside its
	// answer (reasoning_content or reasoning), in order; nil drops it. An
	// error it returns aborts the stream like one from onDelta. Reasoning
	// counts against Limits but is not part of the Response's Content.
	OnReasoning func(text string) error
}

// Usage counts tokens as the provider reported them.
type Usage struct {
	InputTokens  int `json:"inputTokens"`
	OutputTokens int `json:"outputTokens"`
}

// Response is the assembled result of one streamed completion.
type Response struct {
	Content string
	// Reasoning is the reasoning text OnReasoning received.
	Reasoning    string
	ToolCalls    []ToolCall
	Usage        Usage
	FinishReason string
}

// Provider streams one completion. onDelta receives every text chunk in
// order; an error it returns aborts the stream and is returned unchanged.
// A stream that breaks or ends without its terminator is an *Error, and
// so is one that would exceed req.Limits (CodeResponseLimit). The
// Response holds whatever was assembled, even with an error: its Content
// is exactly the text onDelta received.
type Provider interface {
	Stream(ctx context.Context, req Request, onDelta func(text string) error) (Response, error)
}

// Code classifies a provider failure; the values are the turn/failed codes
// of the wire protocol.
type Code string

const (
	CodeAuth        Code = "provider_auth"
	CodeRateLimited Code = "provider_rate_limited"
	CodeUnavailable Code = "provider_unavailable"
	CodeTimeout     Code = "provider_timeout"
	CodeError       Code = "provider_error"
	// CodeResponseLimit: the response would exceed the Request's Limits.
	CodeResponseLimit Code = "response_limit"
)

// Error is a classified provider failure. It never carries a credential.
type Error struct {
	Code    Code
	Status  int // HTTP status when there was one
	Message string
}

func (e *Error) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("%s (HTTP %d): %s", e.Code, e.Status, e.Message)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}
