package lsptest

import "testing"

// A turn's end that announced its changes (changesPending) and a session
// closed without them: a client waiting for them waits for ever. The
// session's close comes after its last turn's changes, so the checker can
// tell, and must (a session closed while its last turn's changes were
// taken lost them that way).
func TestAttackInvariantsCatchChangesNeverSent(t *testing.T) {
	inv := newInvariants()
	inv.observe(ev(0, "scv/turn/completed", "s", 1, "t", `,"changesPending":true`))
	inv.observe(ev(1, "scv/turn/cancelled", "s", 2, "u", ""))
	inv.observe(ev(2, "scv/session/closed", "s", 3, "", ""))
	if len(inv.violations) != 1 {
		t.Errorf("%d violations, want 1 (turn t's changes never came): %v", len(inv.violations), inv.violations)
	}
}

// A turn's changes before its terminal event break the order clients
// rely on (the end says changesPending, the changes follow); with the
// turn's start in view the checker can tell, and must: it passes the
// order the runtime had before the after-snapshot moved past the end.
func TestAttackInvariantsCatchChangesBeforeTheEnd(t *testing.T) {
	inv := newInvariants()
	inv.observe(ev(0, "scv/turn/started", "s", 1, "t", ""))
	inv.observe(ev(1, "scv/turn/changes", "s", 2, "t", ""))
	inv.observe(ev(2, "scv/turn/completed", "s", 3, "t", ""))
	if len(inv.violations) != 1 {
		t.Errorf("%d violations, want 1 (turn t's changes came before its end): %v", len(inv.violations), inv.violations)
	}
}
