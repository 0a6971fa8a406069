package sessions

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"scv/lsp/client"
	"scv/lsp/schema"
	"scv/runtime/session"
)

// UndoTarget is the session and turn `scv undo` reverts.
type UndoTarget struct {
	SessionID string
	TurnID    string
}

// ErrNothingToUndo means the session has no turn left whose changes can
// be reverted.
var ErrNothingToUndo = errors.New("no turn of this session changed files that are not reverted already")

// ResolveUndo fills in what `scv undo` leaves out: the newest session of
// cwd, and that session's last turn that changed files and is not
// reverted.
func ResolveUndo(ctx context.Context, c *Conn, cwd string, t UndoTarget) (UndoTarget, error) {
	if t.SessionID == "" {
		page, err := List(ctx, c, schema.SessionListParams{Cwd: cwd, Limit: 1})
		if err != nil {
			return t, err
		}
		if len(page.Sessions) == 0 {
			return t, fmt.Errorf("no session was started in %s (scv sessions lists them)", cwd)
		}
		t.SessionID = page.Sessions[0].SessionID
	}
	if t.TurnID != "" {
		return t, nil
	}
	tr, err := Fetch(ctx, c, t.SessionID)
	if err != nil {
		return t, explain(err, t.SessionID)
	}
	t.TurnID = lastChangedTurn(tr.Events)
	if t.TurnID == "" {
		return t, ErrNothingToUndo
	}
	return t, nil
}

// lastChangedTurn is the newest turn with changes that no revert took back.
func lastChangedTurn(events []Event) string {
	var changed []string
	reverted := map[string]bool{}
	for _, ev := range events {
		switch p := ev.Payload.(type) {
		case session.TurnChanges:
			if len(p.Files) > 0 {
				changed = append(changed, p.TurnID)
			}
		case session.TurnReverted:
			for _, id := range p.TurnIDs {
				reverted[id] = true
			}
		}
	}
	changed = slices.DeleteFunc(changed, func(id string) bool { return reverted[id] })
	if len(changed) == 0 {
		return ""
	}
	return changed[len(changed)-1]
}

// Undo reverts t (and every later turn of its session).
func Undo(ctx context.Context, c *Conn, t UndoTarget, force bool) (schema.TurnRevertResult, error) {
	var res schema.TurnRevertResult
	err := c.Call(ctx, schema.MethodTurnRevert, schema.TurnRevertParams{SessionID: t.SessionID, TurnID: t.TurnID, Force: force}, &res)
	if e, ok := client.AsError(err); ok && e.DataCode() == schema.CodeTurnNotFound {
		return res, fmt.Errorf("turn %s of session %s cannot be reverted: %s", t.TurnID, t.SessionID, e.Message)
	}
	return res, explain(err, t.SessionID)
}
