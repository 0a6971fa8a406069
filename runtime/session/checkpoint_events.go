package session

// FileStat is one file a turn changed, in the turn's changes event.
type FileStat struct {
	Path    string `json:"path"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	Binary  bool   `json:"binary,omitempty"`
}

type (
	// TurnChanges lists the files a turn changed, sent as it ends.
	// Notice says, once per session, that the workspace is too large to
	// checkpoint whole, so shell changes cannot be undone.
	TurnChanges struct {
		TurnID string     `json:"turnId"`
		Files  []FileStat `json:"files"`
		Notice string     `json:"notice,omitempty"`
	}
	// TurnReverted says turn TurnID and the later turns TurnIDs (TurnID
	// first) were undone: their files restored, their messages cut from
	// the model's history.
	TurnReverted struct {
		TurnID  string   `json:"turnId"`
		TurnIDs []string `json:"turnIds"`
	}
)

func (TurnChanges) isPayload()  {}
func (TurnReverted) isPayload() {}

// FileChange is one file of scv/turn/changes' answer.
type FileChange struct {
	Path   string  `json:"path"`
	Diff   string  `json:"diff"`
	Binary bool    `json:"binary,omitempty"`
	Before *string `json:"before,omitempty"`
	After  *string `json:"after,omitempty"`
}

// TurnChangesResult is the answer to scv/turn/changes.
type TurnChangesResult struct {
	Files []FileChange `json:"files"`
}

// RevertConflict is a file a revert left alone: changed since the turn.
type RevertConflict struct {
	Path string `json:"path"`
	Diff string `json:"diff"`
}

// RevertResult is the answer to scv/turn/revert.
type RevertResult struct {
	Reverted  []string         `json:"reverted"`
	Conflicts []RevertConflict `json:"conflicts"`
}
