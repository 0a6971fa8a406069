package session

import (
	"scv/runtime/provider"
	"scv/runtime/tools"
)

// Event is one numbered event of a session. The runtime says what
// happened in Payload; a front door decides how it looks on its wire.
type Event struct {
	SessionID string
	Seq       uint64
	Payload   Payload
	// size is the event's JSON size as measured against the frame limit.
	size int
	// json is the payload's JSON when measuring the event encoded it
	// (every event but a delta), so that no door encodes it again.
	json []byte
	memo *memo
}

// Payload is one of the event types below.
type Payload interface{ isPayload() }

// Subscriber receives a session's events. Deliver is called with the
// session's lock held, in seq order, and must not block.
type Subscriber interface {
	Deliver(ev Event)
}

// ContextRef names an attachment of a prompt without its text.
type ContextRef struct {
	URI   string `json:"uri"`
	Range *Range `json:"range,omitempty"`
}

// The event types. Their JSON tags are the member names every dialect so
// far shares; the scv dialect adds sessionId and seq before them.
type (
	TurnStarted struct {
		TurnID  string       `json:"turnId"`
		QueueID string       `json:"queueId,omitempty"`
		Prompt  string       `json:"prompt"`
		Context []ContextRef `json:"context,omitempty"`
	}
	AssistantDelta struct {
		TurnID  string `json:"turnId"`
		Content string `json:"content"`
	}
	AssistantCompleted struct {
		TurnID  string `json:"turnId"`
		Content string `json:"content"`
		// Interrupted marks the text received before the response was
		// cut off (a cancel, a shutdown, a failed stream).
		Interrupted bool `json:"interrupted,omitempty"`
	}
	ToolProposed struct {
		TurnID    string `json:"turnId"`
		CallID    string `json:"callId"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
		// OldText is the text of the file a whole-file write would
		// replace, as the disk holds it, when that file exists, is text
		// and holds at most MaxOldTextBytes.
		OldText *string `json:"oldText,omitempty"`
	}
	ToolStarted struct {
		TurnID string `json:"turnId"`
		CallID string `json:"callId"`
		Name   string `json:"name"`
	}
	ToolCompleted struct {
		TurnID    string `json:"turnId"`
		CallID    string `json:"callId"`
		Name      string `json:"name"`
		Success   bool   `json:"success"`
		Output    string `json:"output"`
		Truncated bool   `json:"truncated"`
	}
	ApprovalRequested struct{ Approval }
	ApprovalResolved  struct {
		TurnID     string `json:"turnId"`
		ApprovalID string `json:"approvalId"`
		Decision   string `json:"decision"`
	}
	ContextCompacted struct {
		TurnID          string `json:"turnId"`
		BeforeTokens    int    `json:"beforeTokens"`
		AfterTokens     int    `json:"afterTokens"`
		RemovedMessages int    `json:"removedMessages"`
	}
	// A turn's terminal event's Notice says, once per session, that the
	// session's file passed 80 % of its bound (see logFullNoticeLocked).
	TurnCompleted struct {
		TurnID         string         `json:"turnId"`
		Steps          int            `json:"steps"`
		Usage          provider.Usage `json:"usage"`
		ChangesPending bool           `json:"changesPending,omitempty"`
		Notice         string         `json:"notice,omitempty"`
	}
	TurnCancelled struct {
		TurnID         string `json:"turnId"`
		ChangesPending bool   `json:"changesPending,omitempty"`
		Notice         string `json:"notice,omitempty"`
	}
	TurnFailed struct {
		TurnID         string `json:"turnId"`
		Code           string `json:"code"`
		Message        string `json:"message"`
		ChangesPending bool   `json:"changesPending,omitempty"`
		Notice         string `json:"notice,omitempty"`
	}
	QueueSnapshot struct{ QueueState }
	QueueEnqueued struct {
		Entry    QueueEntry `json:"entry"`
		Position int        `json:"position"`
	}
	QueueUpdated struct {
		Entry QueueEntry `json:"entry"`
	}
	QueueMoved    struct{ MoveResult }
	QueueRemoved  struct{ RemoveResult }
	QueueDequeued struct {
		QueueID string `json:"queueId"`
		TurnID  string `json:"turnId"`
	}
	SessionPaused struct {
		Paused bool `json:"paused"`
	}
	SessionCleared struct{}
	SessionClosed  struct{}
	SessionRenamed struct {
		Title string `json:"title"`
	}
	// TurnSteered is a prompt added to a running turn: it joined the
	// history at a step boundary and reaches the model in its next request.
	TurnSteered struct {
		TurnID string `json:"turnId"`
		Prompt string `json:"prompt"`
	}
	// SessionConfigured is the model and approval policy in force from
	// the session's next model call.
	SessionConfigured struct {
		Model          string `json:"model"`
		ApprovalPolicy string `json:"approvalPolicy"`
	}
	// SessionRestored says what a load from the store found interrupted:
	// the turn that was running (now failed with code interrupted), the
	// approvals that were pending (now cancelled) and the prompts still
	// queued. The session comes back paused when it is sent.
	SessionRestored struct {
		InterruptedTurnID  string   `json:"interruptedTurnId,omitempty"`
		CancelledApprovals []string `json:"cancelledApprovals"`
		Queued             int      `json:"queued"`
		Paused             bool     `json:"paused"`
	}
)

func (TurnStarted) isPayload()        {}
func (AssistantDelta) isPayload()     {}
func (AssistantCompleted) isPayload() {}
func (ToolProposed) isPayload()       {}
func (ToolStarted) isPayload()        {}
func (ToolCompleted) isPayload()      {}
func (ApprovalRequested) isPayload()  {}
func (ApprovalResolved) isPayload()   {}
func (ContextCompacted) isPayload()   {}
func (TurnCompleted) isPayload()      {}
func (TurnCancelled) isPayload()      {}
func (TurnFailed) isPayload()         {}
func (QueueSnapshot) isPayload()      {}
func (QueueEnqueued) isPayload()      {}
func (QueueUpdated) isPayload()       {}
func (QueueMoved) isPayload()         {}
func (QueueRemoved) isPayload()       {}
func (QueueDequeued) isPayload()      {}
func (SessionPaused) isPayload()      {}
func (SessionCleared) isPayload()     {}
func (SessionClosed) isPayload()      {}
func (SessionRenamed) isPayload()     {}
func (SessionRestored) isPayload()    {}
func (TurnSteered) isPayload()        {}
func (SessionConfigured) isPayload()  {}

// QueueEntry is one waiting prompt.
type QueueEntry struct {
	QueueID   string `json:"queueId"`
	Revision  uint64 `json:"revision"`
	Prompt    string `json:"prompt"`
	Submitter string `json:"submitter"`
	// attachments is the editor context resolved when the prompt was queued.
	attachments resolved
	// files is the file access of the window that queued it (nil: the
	// session's); its turn's file tools use it.
	files tools.FileAccess
}

func (e QueueEntry) bytes() int { return len(e.Prompt) + e.attachments.bytes() }

// Approval is what an approval prompt shows: the members of an approval
// request after its session and seq.
type Approval struct {
	TurnID     string `json:"turnId"`
	ApprovalID string `json:"approvalId"`
	CallID     string `json:"callId"`
	Name       string `json:"name"`
	Risk       string `json:"risk"`
	Cwd        string `json:"cwd"`
	Summary    string `json:"summary"`
	// SuggestedRule is the [approvals] allow rule that would let calls
	// like this one run without asking ("shell:go test *"); empty when no
	// rule fits (a command holding shell syntax).
	SuggestedRule string `json:"suggestedRule,omitempty"`
	// Notice says why a rule of the user's file that covers this call is
	// not applied: it appeared while a tool call ran, and waits for the
	// user's confirmation (see config.RuleLedgerName). It names the rule
	// and the file.
	Notice string `json:"notice,omitempty"`
	// ConfirmsRule says SuggestedRule is the rule Notice names, so
	// answering with it as the allow rule confirms that rule; a UI says
	// so on its "Always allow". False when the held rule is not offered
	// (it would allow any command).
	ConfirmsRule bool `json:"confirmsRule,omitempty"`
}

// ApprovalRequest is an open approval as a Snapshot lists it.
type ApprovalRequest struct {
	SessionID string `json:"sessionId"`
	Seq       uint64 `json:"seq"`
	Approval
}
