package schema

// Methods the agent calls on a client that advertises clientCapabilities.fs.
const (
	MethodReadTextFile  = "fs/read_text_file"
	MethodWriteTextFile = "fs/write_text_file"
)

// ReadTextFileParams asks the client for a file's text (its buffer if open).
type ReadTextFileParams struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	Line      *int   `json:"line,omitempty"`
	Limit     *int   `json:"limit,omitempty"`
}

// ReadTextFileResult is the client's answer.
type ReadTextFileResult struct {
	Content string `json:"content"`
}

// WriteTextFileParams asks the client to replace a file's content.
type WriteTextFileParams struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	Content   string `json:"content"`
}

// UpdateAvailableCommands lists the slash commands the session offers.
const UpdateAvailableCommands = "available_commands_update"

// AvailableCommandsUpdate is the available_commands_update update.
type AvailableCommandsUpdate struct {
	SessionUpdate     string             `json:"sessionUpdate"`
	AvailableCommands []AvailableCommand `json:"availableCommands"`
}

// AvailableCommand is one slash command.
type AvailableCommand struct {
	Name        string                 `json:"name"`
	Description string                 `json:"description"`
	Input       *AvailableCommandInput `json:"input,omitempty"`
}

// AvailableCommandInput hints at the text that follows the command.
type AvailableCommandInput struct {
	Hint string `json:"hint"`
}
