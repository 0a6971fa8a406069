// Package notice renders for a terminal (scv exec, scv demo, scv attach)
// the notices the runtime attaches to its events: a held rule's notice on
// an approval request, and the notice a turn's terminal event carries when
// its session's file nears its bound. Every terminal view prints them the
// same way, as a "note:" line made safe for the terminal, so they live in
// one place.
package notice

import (
	"encoding/json"

	"scv/internal/termsafe"
	"scv/runtime/session"
)

// cannotConfirm follows a held rule's notice: the notice speaks of
// "Always allow", which a terminal prompt does not offer, and its
// "for the session" answer must not be taken for it.
const cannotConfirm = "this prompt cannot confirm it: its answers approve this call, or the tool for this session, and leave the rule unconfirmed"

// Approval is the lines to print before an approval request's question,
// already made safe for a terminal (the notice names a rule and a path a
// command may have written); none when the request has no notice. None of
// the terminal prompts can answer with an allow rule, so a rule held for
// confirmation stays held whatever the user answers there.
func Approval(a session.Approval) []string {
	if a.Notice == "" {
		return nil
	}
	return []string{line(a.Notice), cannotConfirm}
}

// TurnEnd is the line a terminal view shows under a turn's end for the
// notice its terminal event (scv/turn/completed, cancelled or failed)
// carries; "" when it carries none. The runtime sets it once per session,
// when the session's file passes 80 % of its bound (sessions.max_log_bytes).
func TurnEnd(params json.RawMessage) string {
	var p struct {
		Notice string `json:"notice"`
	}
	if json.Unmarshal(params, &p) != nil || p.Notice == "" {
		return ""
	}
	return line(p.Notice)
}

// line is how a terminal view shows any notice: marked as a note and
// escaped, since a notice may quote what a command wrote.
func line(text string) string {
	return "note: " + termsafe.Line(text)
}
