package sessions

import (
	"context"
	"errors"
	"fmt"

	"scv/lsp/client"
	"scv/lsp/schema"
)

// codeMethodNotFound is JSON-RPC's answer to a method the server lacks.
const codeMethodNotFound = -32601

// ErrNoDelete means the server cannot delete sessions: it predates stored
// sessions (a daemon started from an older scv).
var ErrNoDelete = errors.New("this scv server cannot delete sessions (it predates stored sessions); restart the daemon with this scv (scv stop)")

// Remove deletes session id, explaining each refusal in words.
func Remove(ctx context.Context, c *Conn, id string) error {
	err := c.Call(ctx, schema.MethodSessionDelete, schema.SessionRef{SessionID: id}, nil)
	if e, ok := client.AsError(err); ok && e.Code == codeMethodNotFound && e.DataCode() == "" {
		return ErrNoDelete
	}
	return explain(err, id)
}

// explain turns the refusals the session commands meet into sentences that
// say what to do; other errors pass unchanged.
func explain(err error, id string) error {
	e, ok := client.AsError(err)
	if !ok {
		return err
	}
	switch e.DataCode() {
	case schema.CodeSessionNotFound:
		return fmt.Errorf("no session %s (scv sessions lists them)", id)
	case schema.CodeTurnActive:
		return fmt.Errorf("a turn is running in session %s: cancel it or let it finish, then try again", id)
	case schema.CodeSessionOwned:
		return fmt.Errorf("session %s is open in another scv process: %s", id, e.Message)
	}
	return err
}
