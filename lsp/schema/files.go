package schema

// Requests the server sends to a client. A client that serves a file for
// a prompt's turn (an editor with unsaved buffers, or `scv acp` relaying
// its ACP client's fs methods) says so with scv/turn/start's fileAccess;
// the file tools of that turn then read and write through it, after the
// workspace confinement and the approvals, exactly as on disk.
const (
	MethodFileRead  = "scv/file/read"
	MethodFileWrite = "scv/file/write"
)

// ClientMethods lists the requests above; initialize advertises them as
// capabilities.experimental.scv.clientRequests.
var ClientMethods = []string{MethodFileRead, MethodFileWrite}

// FileAccess is scv/turn/start's fileAccess: which of the requests above
// the sending connection answers for that prompt's turn. An answer whose
// error has data.code "unsupported" sends that call to the disk.
type FileAccess struct {
	Read  bool `json:"read,omitempty"`
	Write bool `json:"write,omitempty"`
}

// FileReadParams is the params of scv/file/read: an absolute path inside
// the session's workspace, and optionally the 1-based first line and the
// number of lines.
type FileReadParams struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	Line      *int   `json:"line,omitempty"`
	Limit     *int   `json:"limit,omitempty"`
}

// FileReadResult is the result of scv/file/read.
type FileReadResult struct {
	Content string `json:"content"`
}

// FileWriteParams is the params of scv/file/write: the file's whole new
// content (the result is {}).
type FileWriteParams struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	Content   string `json:"content"`
}
