package acp

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"scv/acp/schema"
	"scv/runtime/session"
)

// toolArgs are the arguments of scv's tools that an ACP client shows.
type toolArgs struct {
	Path    string  `json:"path"`
	Pattern string  `json:"pattern"`
	Command string  `json:"command"`
	Content *string `json:"content"`
	Old     *string `json:"old"`
	New     *string `json:"new"`
	Name    string  `json:"name"`
}

// kindOf says what sort of tool a built-in is; unknown tools are "other".
func kindOf(name string) string {
	switch name {
	case "read_file", "list_dir", "read_skill":
		return schema.KindRead
	case "grep", "glob":
		return schema.KindSearch
	case "write_file", "edit_file":
		return schema.KindEdit
	case "shell":
		return schema.KindExecute
	}
	return schema.KindOther
}

// maxTitleCommand bounds how much of a shell command a title shows.
const maxTitleCommand = 120

func titleOf(name string, a toolArgs) string {
	switch name {
	case "read_file":
		return "Read " + a.Path
	case "list_dir":
		return "List " + or(a.Path, ".")
	case "read_skill":
		return "Read skill " + a.Name
	case "grep":
		return "Search for " + a.Pattern
	case "glob":
		return "Find " + a.Pattern
	case "write_file":
		return "Write " + a.Path
	case "edit_file":
		return "Edit " + a.Path
	case "shell":
		cmd := a.Command
		if len(cmd) > maxTitleCommand {
			cmd = cmd[:maxTitleCommand] + "…"
		}
		return "Run " + cmd
	}
	return name
}

func or(s, dflt string) string {
	if s == "" {
		return dflt
	}
	return s
}

// absPath makes a workspace-relative path absolute, as ACP paths are.
func absPath(cwd, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(cwd, p)
}

// toolCall is the tool_call update of a proposed call: pending, with its
// input, the file it touches and, for an edit, the diff it would make.
func toolCall(p session.ToolProposed, cwd string) schema.ToolCallUpdate {
	var a toolArgs
	_ = json.Unmarshal([]byte(p.Arguments), &a) // a bad argument still shows, by name
	u := schema.ToolCallUpdate{
		SessionUpdate: schema.UpdateToolCall,
		ToolCallID:    p.CallID,
		Title:         titleOf(p.Name, a),
		Kind:          kindOf(p.Name),
		Status:        schema.StatusPending,
	}
	if json.Valid([]byte(p.Arguments)) {
		u.RawInput = json.RawMessage(p.Arguments)
	}
	if a.Path != "" && !strings.ContainsRune(a.Path, 0) {
		u.Locations = []schema.Location{{Path: absPath(cwd, a.Path)}}
	}
	switch p.Name {
	case "write_file":
		if a.Content != nil {
			// oldText absent: a new file (or one too large or binary to show).
			u.Content = []schema.ToolCallContent{{Type: "diff", Path: absPath(cwd, a.Path), OldText: p.OldText, NewText: a.Content}}
		}
	case "edit_file":
		if a.Old != nil && a.New != nil {
			u.Content = []schema.ToolCallContent{{Type: "diff", Path: absPath(cwd, a.Path), OldText: a.Old, NewText: a.New}}
		}
	}
	return u
}

// toolDone is the update of a finished call. An edit that succeeded keeps
// its diff as content; everything else shows the tool's output.
func toolDone(p session.ToolCompleted) schema.ToolCallUpdate {
	u := schema.ToolCallUpdate{SessionUpdate: schema.UpdateToolCallUpdate, ToolCallID: p.CallID, Status: schema.StatusCompleted}
	if !p.Success {
		u.Status = schema.StatusFailed
	}
	if !p.Success || kindOf(p.Name) != schema.KindEdit {
		text := schema.Text(p.Output)
		u.Content = []schema.ToolCallContent{{Type: "content", Content: &text}}
	}
	return u
}
