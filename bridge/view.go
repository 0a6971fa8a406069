package bridge

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"scv/internal/notice"
	"scv/internal/termsafe"
	"scv/internal/turnchanges"
	"scv/lsp/schema"
)

const (
	// viewOutputBytes bounds the tool output `scv attach` prints per call.
	viewOutputBytes = 2000
	// viewArgumentBytes bounds the tool arguments it prints per call.
	viewArgumentBytes = 300
	// viewPromptBytes bounds a queued prompt as printed.
	viewPromptBytes = 120
)

// Approval is a pending approval request as `scv attach` shows it.
type Approval = schema.Approval

// AttachView renders one session's events as text for `scv attach`, and
// keeps the approvals still waiting for an answer. Events that arrive
// before the attach's Snapshot has been shown are held back, so the header
// comes first. Text from the model, tools and the daemon goes through
// termsafe: control characters and escape sequences are shown escaped.
type AttachView struct {
	mu        sync.Mutex
	w         io.Writer
	shown     bool // the snapshot header is out
	backlog   [][2]string
	midLine   bool                        // the last write did not end a line
	streamed  map[string]*termsafe.Stream // turns whose deltas were printed
	approvals []Approval
	// snapshotApprovals wait until the replay reaches replayEnd (the
	// snapshot's seq), so they are shown where they belong in the history.
	snapshotApprovals []Approval
	replayEnd         uint64
	closed            chan struct{}
	isClosed          bool
	live              liveView // see view_live.go
}

// NewAttachView writes to w.
func NewAttachView(w io.Writer) *AttachView {
	return &AttachView{w: w, streamed: map[string]*termsafe.Stream{}, closed: make(chan struct{})}
}

// Closed is closed when scv/session/closed arrives.
func (v *AttachView) Closed() <-chan struct{} { return v.closed }

// PendingApprovals returns the approvals waiting for an answer, oldest first.
func (v *AttachView) PendingApprovals() []Approval {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]Approval(nil), v.approvals...)
}

// Printf writes a line of the CLI's own, keeping the stream's lines intact.
func (v *AttachView) Printf(format string, args ...any) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.line(fmt.Sprintf(format, args...))
}

// Snapshot shows the attach result, then the events held back meanwhile.
func (v *AttachView) Snapshot(raw json.RawMessage) error {
	var s struct {
		SessionID string `json:"sessionId"`
		Cwd       string `json:"cwd"`
		Model     string `json:"model"`
		State     string `json:"state"`
		TurnID    string `json:"turnId"`
		Queue     struct {
			Entries []json.RawMessage `json:"entries"`
			Paused  bool              `json:"paused"`
		} `json:"queue"`
		PendingApprovals []Approval `json:"pendingApprovals"`
		Seq              uint64     `json:"seq"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return fmt.Errorf("decode the session snapshot: %w", err)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.line(fmt.Sprintf("session %s  model %s  cwd %s", termsafe.Line(s.SessionID), termsafe.Line(s.Model), termsafe.Line(s.Cwd)))
	state := s.State
	if s.TurnID != "" {
		state += " (turn " + termsafe.Line(s.TurnID) + ")"
	}
	queue := fmt.Sprintf("%d queued", len(s.Queue.Entries))
	if s.Queue.Paused {
		queue += ", paused"
	}
	v.line(fmt.Sprintf("state %s, %s, last event %d; replaying what the daemon still holds", state, queue, s.Seq))
	v.shown = true
	v.snapshotApprovals = s.PendingApprovals
	v.replayEnd = s.Seq
	if s.Seq == 0 {
		v.replayDone()
	}
	backlog := v.backlog
	v.backlog = nil
	for _, ev := range backlog {
		v.render(ev[0], json.RawMessage(ev[1]))
	}
	return nil
}

// replayDone shows the snapshot's pending approvals that the replay did not
// (its ring may have lost their requests).
func (v *AttachView) replayDone() {
	for _, a := range v.snapshotApprovals {
		v.addApproval(a)
	}
	v.snapshotApprovals = nil
}

// Event renders one notification; use it as the Client's onNotify.
func (v *AttachView) Event(method string, params json.RawMessage) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.shown {
		v.backlog = append(v.backlog, [2]string{method, string(params)})
		return
	}
	v.render(method, params)
}

// eventParams holds every field any event carries that the view shows.
type eventParams struct {
	Seq          uint64                                  `json:"seq"`
	TurnID       string                                  `json:"turnId"`
	QueueID      string                                  `json:"queueId"`
	Content      string                                  `json:"content"`
	CallID       string                                  `json:"callId"`
	Name         string                                  `json:"name"`
	Arguments    string                                  `json:"arguments"`
	Success      bool                                    `json:"success"`
	Output       string                                  `json:"output"`
	Truncated    bool                                    `json:"truncated"`
	ApprovalID   string                                  `json:"approvalId"`
	Decision     string                                  `json:"decision"`
	BeforeTokens int                                     `json:"beforeTokens"`
	AfterTokens  int                                     `json:"afterTokens"`
	Steps        int                                     `json:"steps"`
	Usage        struct{ InputTokens, OutputTokens int } `json:"usage"`
	Code         string                                  `json:"code"`
	Message      string                                  `json:"message"`
	Entries      []json.RawMessage                       `json:"entries"`
	Entry        struct{ QueueID, Prompt string }        `json:"entry"`
	Position     int                                     `json:"position"`
	Paused       bool                                    `json:"paused"`
	Missed       uint64                                  `json:"missed"`
	FirstSeq     uint64                                  `json:"firstAvailableSeq"`
}

func (v *AttachView) render(method string, raw json.RawMessage) {
	if seq, ok := v.renderLive(method, raw); ok {
		if v.snapshotApprovals != nil && seq >= v.replayEnd {
			v.replayDone()
		}
		return
	}
	var p eventParams
	if err := json.Unmarshal(raw, &p); err != nil {
		v.line(fmt.Sprintf("• %s (undecodable: %v)", termsafe.Line(method), err))
		return
	}
	v.renderEvent(method, raw, &p)
	if v.snapshotApprovals != nil && p.Seq >= v.replayEnd {
		v.replayDone()
	}
}

func (v *AttachView) renderEvent(method string, raw json.RawMessage, p *eventParams) {
	switch method {
	case schema.EvTurnStarted:
		from := ""
		if p.QueueID != "" {
			from = " from queue entry " + termsafe.Line(p.QueueID)
		}
		v.line("── turn " + termsafe.Line(p.TurnID) + " started" + from)
	case schema.EvAssistantDelta:
		stream := v.streamed[p.TurnID]
		if stream == nil {
			stream = &termsafe.Stream{}
			v.streamed[p.TurnID] = stream
		}
		v.write(stream.Write(p.Content))
	case schema.EvAssistantCompleted:
		if stream := v.streamed[p.TurnID]; stream != nil {
			v.write(stream.Flush())
		} else {
			v.line(termsafe.Escape(p.Content))
		}
		v.endLine()
	case schema.EvToolProposed:
		v.line("• " + termsafe.Line(p.Name) + " " + termsafe.Clip(termsafe.Line(p.Arguments), viewArgumentBytes))
	case schema.EvToolStarted:
		v.line("• " + termsafe.Line(p.Name) + " running")
	case schema.EvToolCompleted:
		status := "done"
		if !p.Success {
			status = "failed"
		}
		if p.Truncated {
			status += " (output truncated)"
		}
		live := v.liveOutputShown(p.CallID)
		v.line("• " + termsafe.Line(p.Name) + " " + status)
		if live {
			break // printed while it ran
		}
		if out := strings.TrimRight(termsafe.Clip(termsafe.Escape(p.Output), viewOutputBytes), "\n"); out != "" {
			v.line("  " + strings.ReplaceAll(out, "\n", "\n  "))
		}
	case schema.EvApprovalRequested:
		var a Approval
		json.Unmarshal(raw, &a)
		v.addApproval(a)
	case schema.EvApprovalResolved:
		v.dropApprovals(func(a Approval) bool { return a.ApprovalID == p.ApprovalID })
		v.line("✓ approval " + termsafe.Line(p.ApprovalID) + ": " + termsafe.Line(p.Decision))
	case schema.EvContextCompacted:
		v.line(fmt.Sprintf("• context compacted from %d to %d tokens", p.BeforeTokens, p.AfterTokens))
	case schema.EvTurnChanges:
		var c schema.TurnChangesEventParams
		json.Unmarshal(raw, &c)
		if text := turnchanges.Text(c.SessionID, c.TurnChanges); text != "" {
			v.line("• turn " + termsafe.Line(c.TurnID) + " " + strings.TrimRight(text, "\n"))
		}
	case schema.EvTurnCompleted:
		v.turnEnded(p.TurnID, fmt.Sprintf("completed in %d steps, %d tokens in, %d out", p.Steps, p.Usage.InputTokens, p.Usage.OutputTokens))
		v.showTurnEndNotice(raw)
	case schema.EvTurnCancelled:
		v.turnEnded(p.TurnID, "cancelled")
		v.showTurnEndNotice(raw)
	case schema.EvTurnFailed:
		v.turnEnded(p.TurnID, "failed: "+termsafe.Line(p.Code)+": "+termsafe.Escape(p.Message))
		v.showTurnEndNotice(raw)
	case schema.EvQueueSnapshot:
		v.line(fmt.Sprintf("• queue: %d entries%s", len(p.Entries), pausedNote(p.Paused)))
	case schema.EvQueueEnqueued:
		v.line(fmt.Sprintf("• queued %s at %d: %s", termsafe.Line(p.Entry.QueueID), p.Position, termsafe.Clip(termsafe.Line(p.Entry.Prompt), viewPromptBytes)))
	case schema.EvQueueUpdated:
		v.line(fmt.Sprintf("• queue entry %s edited: %s", termsafe.Line(p.Entry.QueueID), termsafe.Clip(termsafe.Line(p.Entry.Prompt), viewPromptBytes)))
	case schema.EvQueueMoved:
		v.line(fmt.Sprintf("• queue entry %s moved to %d", termsafe.Line(p.QueueID), p.Position))
	case schema.EvQueueRemoved:
		v.line("• queue entry " + termsafe.Line(p.QueueID) + " removed")
	case schema.EvQueueDequeued:
		v.line("• queue entry " + termsafe.Line(p.QueueID) + " starts as turn " + termsafe.Line(p.TurnID))
	case schema.EvSessionPaused:
		if p.Paused {
			v.line("• session paused")
		} else {
			v.line("• session resumed")
		}
	case schema.EvSessionCleared:
		v.line("• session cleared")
	case schema.EvSessionClosed:
		v.line("• session closed")
		if !v.isClosed {
			v.isClosed = true
			close(v.closed)
		}
	case schema.EvSessionLagged:
		v.line(fmt.Sprintf("• this window fell behind and missed %d events", p.Missed))
	case schema.EvSessionGap:
		v.line(fmt.Sprintf("• older events are gone; replay starts at event %d", p.FirstSeq))
	default:
		v.line("• " + termsafe.Line(method) + " " + termsafe.Clip(termsafe.Line(string(raw)), viewArgumentBytes))
	}
}

func pausedNote(paused bool) string {
	if paused {
		return " (paused)"
	}
	return ""
}

func (v *AttachView) turnEnded(turnID, how string) {
	if stream := v.streamed[turnID]; stream != nil {
		v.write(stream.Flush())
	}
	v.endLine()
	delete(v.streamed, turnID)
	v.dropApprovals(func(a Approval) bool { return a.TurnID == turnID })
	v.line("── turn " + termsafe.Line(turnID) + " " + how)
}

// showTurnEndNotice shows the notice a turn's terminal event carries (its
// session's file is nearly full), under the turn's end.
func (v *AttachView) showTurnEndNotice(raw json.RawMessage) {
	if line := notice.TurnEnd(raw); line != "" {
		v.line(line)
	}
}

// addApproval records a request once: the snapshot and the replay may both
// carry it.
func (v *AttachView) addApproval(a Approval) {
	if v.hasApproval(a.ApprovalID) {
		return
	}
	v.approvals = append(v.approvals, a)
	v.line(fmt.Sprintf("? approval %s: %s (%s) in %s: %s", termsafe.Line(a.ApprovalID), termsafe.Line(a.Name), termsafe.Line(a.Risk), termsafe.Line(a.Cwd), strings.TrimRight(termsafe.Escape(a.Summary), "\n")))
	for _, l := range notice.Approval(a) {
		v.line("  " + l)
	}
	v.line("  answer y (approve), s (approve for the session) or n (deny)")
}

func (v *AttachView) hasApproval(id string) bool {
	for _, a := range v.approvals {
		if a.ApprovalID == id {
			return true
		}
	}
	return false
}

func (v *AttachView) dropApprovals(drop func(Approval) bool) {
	kept := v.approvals[:0]
	for _, a := range v.approvals {
		if !drop(a) {
			kept = append(kept, a)
		}
	}
	v.approvals = kept
}

// line writes s as whole lines, first ending a streamed line in progress.
func (v *AttachView) line(s string) {
	v.endLine()
	io.WriteString(v.w, s+"\n")
}

// write prints streamed text, remembering whether it ended a line.
func (v *AttachView) write(text string) {
	if text == "" {
		return
	}
	io.WriteString(v.w, text)
	v.midLine = !strings.HasSuffix(text, "\n")
}

func (v *AttachView) endLine() {
	if v.midLine {
		io.WriteString(v.w, "\n")
		v.midLine = false
	}
}
