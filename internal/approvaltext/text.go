// Package approvaltext is what a terminal prints of an approval request's
// warnings before it asks: the lines `scv exec`, `scv demo` and `scv attach`
// share. None of those prompts can answer with an allow rule, so a rule
// held for confirmation stays held whatever the user answers there.
package approvaltext

import (
	"scv/internal/termsafe"
	"scv/runtime/session"
)

// cannotConfirm follows a held rule's notice: the notice speaks of
// "Always allow", which a terminal prompt does not offer, and its
// "for the session" answer must not be taken for it.
const cannotConfirm = "this prompt cannot confirm it: its answers approve this call, or the tool for this session, and leave the rule unconfirmed"

// Notice is the lines to print before the question, already made safe
// for a terminal (the notice names a rule and a path a command may have
// written); none when the request has no notice.
func Notice(a session.Approval) []string {
	if a.Notice == "" {
		return nil
	}
	return []string{"note: " + termsafe.Line(a.Notice), cannotConfirm}
}
