package schema

import "encoding/json"

// Notification is session/update's params.
type Notification struct {
	SessionID string `json:"sessionId"`
	Update    any    `json:"update"`
}

// Chunk is a message chunk update.
type Chunk struct {
	SessionUpdate string    `json:"sessionUpdate"`
	Content       TextBlock `json:"content"`
}

// TextBlock is a text content block.
type TextBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// Text returns a text content block.
func Text(s string) TextBlock { return TextBlock{Type: "text", Text: s} }

// ToolCallUpdate is a tool_call or tool_call_update; the first carries
// title and kind, later ones what changed.
type ToolCallUpdate struct {
	SessionUpdate string            `json:"sessionUpdate,omitempty"`
	ToolCallID    string            `json:"toolCallId"`
	Title         string            `json:"title,omitempty"`
	Kind          string            `json:"kind,omitempty"`
	Status        string            `json:"status,omitempty"`
	Content       []ToolCallContent `json:"content,omitempty"`
	Locations     []Location        `json:"locations,omitempty"`
	RawInput      json.RawMessage   `json:"rawInput,omitempty"`
}

// ToolCallContent is text output or a diff.
type ToolCallContent struct {
	Type    string     `json:"type"` // "content" or "diff"
	Content *TextBlock `json:"content,omitempty"`
	Path    string     `json:"path,omitempty"`
	OldText *string    `json:"oldText,omitempty"`
	NewText *string    `json:"newText,omitempty"`
}

// Location is a file a tool call touches.
type Location struct {
	Path string `json:"path"`
	Line *int   `json:"line,omitempty"`
}

// CurrentModeUpdate tells the client the mode changed.
type CurrentModeUpdate struct {
	SessionUpdate string `json:"sessionUpdate"`
	CurrentModeID string `json:"currentModeId"`
}

// ConfigOptionUpdate tells the client the options changed.
type ConfigOptionUpdate struct {
	SessionUpdate string         `json:"sessionUpdate"`
	ConfigOptions []ConfigOption `json:"configOptions"`
}

// UsageUpdate reports the context used and its size, in tokens.
type UsageUpdate struct {
	SessionUpdate string `json:"sessionUpdate"`
	Used          int    `json:"used"`
	Size          int    `json:"size"`
}

// SessionInfoUpdate tells the client the session's title.
type SessionInfoUpdate struct {
	SessionUpdate string `json:"sessionUpdate"`
	Title         string `json:"title"`
}

// UpdateNotice is a notice for the user, outside the session's history;
// sent only to clients that advertise session.notices.
const UpdateNotice = "notice"

// Notice is a notice update.
type Notice struct {
	SessionUpdate string `json:"sessionUpdate"`
	Severity      string `json:"severity"`
	Title         string `json:"title"`
	Description   string `json:"description,omitempty"`
}
