package sessions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"scv/internal/termsafe"
	"scv/internal/turnchanges"
	"scv/runtime/session"
	"scv/runtime/store"
)

// Transcript is what `scv sessions export` renders: the session's header
// and its events, oldest first.
type Transcript struct {
	SessionID, Cwd, Model string
	// GapFrom, when not 0, is the first event the server still held: the
	// ones before it are gone (a server that keeps only a ring).
	GapFrom uint64
	Events  []Event
}

// Render returns the transcript as Markdown: a title and the session's
// header, then per turn its prompt, the assistant's answers (Markdown
// already, so as they are), each tool call with its arguments and result
// in fences longer than any backtick run inside, approvals, compactions
// and how the turn ended. The output is terminal-safe: control characters
// and invisible format characters are shown escaped, as termsafe does
// everywhere in scv, so printing an export cannot drive a terminal.
func Render(t Transcript) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", termsafe.Line(title(t)))
	fmt.Fprintf(&b, "- Session: %s\n", code(t.SessionID))
	fmt.Fprintf(&b, "- Directory: %s\n", code(t.Cwd))
	fmt.Fprintf(&b, "- Model: %s\n", code(t.Model))
	if t.GapFrom > 1 {
		fmt.Fprintf(&b, "\n_Events before %d are no longer held by the server; the transcript starts there._\n", t.GapFrom)
	}
	for _, ev := range t.Events {
		renderEvent(&b, ev.Payload)
	}
	return termsafe.Escape(b.String())
}

// title is the session's last name given, else its first prompt's first
// line (as the store titles a session), else its id.
func title(t Transcript) string {
	name, first := "", ""
	for _, ev := range t.Events {
		switch p := ev.Payload.(type) {
		case Renamed:
			name = p.Title
		case session.TurnStarted:
			if first == "" {
				first = store.Title(p.Prompt)
			}
		}
	}
	switch {
	case name != "":
		return name
	case first != "":
		return first
	}
	return "Session " + t.SessionID
}

func renderEvent(b *strings.Builder, payload any) {
	if renderLive(b, payload) {
		return
	}
	switch p := payload.(type) {
	case session.TurnStarted:
		fmt.Fprintf(b, "\n## Prompt\n\n%s\n", block(p.Prompt))
		if len(p.Context) > 0 {
			refs := make([]string, len(p.Context))
			for i, c := range p.Context {
				refs[i] = code(c.URI) + lines(c.Range)
			}
			fmt.Fprintf(b, "\nContext: %s\n", strings.Join(refs, ", "))
		}
	case Assistant:
		if text := block(p.Content); text != "" {
			fmt.Fprintf(b, "\n%s\n", text)
		}
		if p.Interrupted {
			b.WriteString("\n_(the answer was cut off here)_\n")
		}
	case session.ToolProposed:
		fmt.Fprintf(b, "\n### Tool call %s\n\n%s", code(p.Name), fence(prettyJSON(p.Arguments), "json"))
	case session.ToolCompleted:
		status := "Result"
		if !p.Success {
			status = "Result (failed)"
		}
		if p.Truncated {
			status += " (output truncated)"
		}
		fmt.Fprintf(b, "\n%s:\n\n%s", status, fence(p.Output, "text"))
	case session.ApprovalRequested:
		fmt.Fprintf(b, "\nApproval asked for %s (risk: %s):\n\n%s", code(p.Name), termsafe.Line(p.Risk), fence(p.Summary, "text"))
		note(b, p.Notice) // a rule held for confirmation: part of why the user answered as they did
	case session.ApprovalResolved:
		fmt.Fprintf(b, "\nApproval %s: **%s**\n", code(p.ApprovalID), termsafe.Line(p.Decision))
	case session.ContextCompacted:
		fmt.Fprintf(b, "\n_Context compacted from %d to %d tokens (%d messages dropped)._\n", p.BeforeTokens, p.AfterTokens, p.RemovedMessages)
	case session.TurnCompleted:
		fmt.Fprintf(b, "\n_Turn completed in %d step(s); tokens: %d in, %d out._\n", p.Steps, p.Usage.InputTokens, p.Usage.OutputTokens)
		note(b, p.Notice)
	case session.TurnCancelled:
		b.WriteString("\n_Turn cancelled._\n")
		note(b, p.Notice)
	case session.TurnFailed:
		fmt.Fprintf(b, "\n**Turn failed** (%s): %s\n", code(p.Code), termsafe.Line(p.Message))
		note(b, p.Notice)
	case session.TurnChanges:
		if len(p.Files) > 0 { // a turn whose tools changed nothing says so with none
			fmt.Fprintf(b, "\n_Turn %s changed %d file(s):_\n\n", code(p.TurnID), len(p.Files))
		}
		for _, f := range p.Files {
			fmt.Fprintf(b, "- %s %s\n", code(f.Path), turnchanges.Stat(f))
		}
		note(b, p.Notice)
	case session.TurnReverted:
		fmt.Fprintf(b, "\n---\n\n_Reverted %d turn(s) from turn %s on: their files were restored and their messages left the model's history._\n", len(p.TurnIDs), code(p.TurnID))
	case session.SessionCleared:
		b.WriteString("\n---\n\n_The session was cleared: the model's history starts again here._\n")
	case Restored:
		b.WriteString("\n---\n\n_The session was restored after scv stopped")
		if p.InterruptedTurnID != "" {
			fmt.Fprintf(b, "; turn %s was interrupted", code(p.InterruptedTurnID))
		}
		if n := len(p.CancelledApprovals); n > 0 {
			fmt.Fprintf(b, "; %d pending approval(s) were cancelled", n)
		}
		if p.Queued > 0 {
			fmt.Fprintf(b, "; %d queued prompt(s) kept", p.Queued)
		}
		if p.Paused {
			b.WriteString(", paused")
		}
		b.WriteString("._\n")
	}
}

// block trims a text's surrounding blank lines and closes a code fence
// the text left open, so one answer cannot swallow the rest of the
// transcript into its code block.
func block(s string) string {
	s = strings.Trim(s, "\r\n")
	if open := openFence(s); open != "" {
		s += "\n" + open
	}
	return s
}

// openFence returns the fence (``` or ~~~, as long as its opener) of a
// code block s leaves open, or "".
func openFence(s string) string {
	open := ""
	for line := range strings.Lines(s) {
		line = strings.TrimRight(strings.TrimLeft(line, " "), "\r\n")
		run := 0
		if line != "" && (line[0] == '`' || line[0] == '~') {
			run = longestPrefix(line, line[0])
		}
		switch {
		case run < 3:
		case open == "":
			open = line[:run]
		case line[0] == open[0] && run >= len(open) && strings.TrimSpace(line[run:]) == "":
			open = ""
		}
	}
	return open
}

func longestPrefix(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// lines shows an attachment's range as 1-based lines.
func lines(r *session.Range) string {
	if r == nil {
		return ""
	}
	if r.Start.Line == r.End.Line {
		return fmt.Sprintf(" line %d", r.Start.Line+1)
	}
	return fmt.Sprintf(" lines %d–%d", r.Start.Line+1, r.End.Line+1)
}

// prettyJSON indents a tool's arguments; text that is not JSON stays as is.
func prettyJSON(s string) string {
	var out bytes.Buffer
	if json.Indent(&out, []byte(s), "", "  ") != nil {
		return s
	}
	return out.String()
}

// fence puts text in a fenced code block whose fence is longer than any
// run of backticks inside, so no content can close it early.
func fence(text, info string) string {
	f := strings.Repeat("`", max(3, longestRun(text, '`')+1))
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return f + info + "\n" + text + f + "\n"
}

// code shows a name, path or id as inline code on one line: delimited by a
// backtick run longer than any inside, padded when it starts or ends with
// a backtick.
func code(s string) string {
	s = termsafe.Line(s)
	if s == "" {
		return "(none)"
	}
	d := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return d + s + d
}

func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// note renders a notice an event carries (a turn's end: the session's file
// is nearly full; a turn's changes: the workspace is too large to
// checkpoint), if it has one.
func note(b *strings.Builder, notice string) {
	if notice != "" {
		fmt.Fprintf(b, "\n_Note: %s._\n", termsafe.Line(notice))
	}
}
