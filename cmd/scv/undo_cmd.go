package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"scv/cli/sessions"
	"scv/internal/termsafe"
	"scv/lsp/schema"
)

// runUndo is `scv undo [--force] [SESSION [TURN]]`: it reverts a turn and
// every later one of the session. Without TURN, the session's last turn
// that changed files; without SESSION, the newest session of the current
// directory. It exits 1 with the conflicts listed when a file was changed
// since the turn; --force reverts those too.
func runUndo(args []string) int {
	fs := flag.NewFlagSet("scv undo", flag.ContinueOnError)
	socketFlag := fs.String("socket", "", "daemon socket (default $SCV_SOCKET or $SCV_HOME/server.sock)")
	force := fs.Bool("force", false, "also revert files changed since the turn (their changes are lost)")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: scv undo [--force] [SESSION [TURN]]")
		fs.PrintDefaults()
	}
	if fs.Parse(args) != nil {
		return 2
	}
	if fs.NArg() > 2 {
		fs.Usage()
		return 2
	}
	target := sessions.UndoTarget{SessionID: fs.Arg(0), TurnID: fs.Arg(1)}
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(os.Stderr, "scv undo: %v\n", err)
		return 1
	}
	conflicts := false
	status := withSessions("undo", *socketFlag, func(ctx context.Context, c *sessions.Conn) error {
		t, err := sessions.ResolveUndo(ctx, c, cwd, target)
		if err != nil {
			return err
		}
		res, err := sessions.Undo(ctx, c, t, *force)
		if err != nil {
			return err
		}
		if len(res.Conflicts) > 0 {
			conflicts = true
			printConflicts(res, t.TurnID, *force)
			return nil
		}
		fmt.Printf("reverted turn %s of session %s: %d file(s)\n", t.TurnID, t.SessionID, len(res.Reverted))
		for _, p := range res.Reverted {
			fmt.Printf("  %s\n", termsafe.Line(p))
		}
		return nil
	})
	if conflicts {
		return 1
	}
	return status
}

// printConflicts explains a revert that left conflicts: files changed
// since the turn (nothing was written, unless --force), or files no
// revert may restore until they are moved away (the first line of each
// diff says why). The turn stays revertable either way.
func printConflicts(res schema.TurnRevertResult, turnID string, force bool) {
	if len(res.Reverted) == 0 && !force {
		fmt.Fprintf(os.Stderr, "scv undo: nothing was reverted: %d file(s) changed since turn %s:\n", len(res.Conflicts), turnID)
	} else {
		fmt.Fprintf(os.Stderr, "scv undo: turn %s is not reverted: %d file(s) cannot be reverted safely (%d file(s) were reverted):\n", turnID, len(res.Conflicts), len(res.Reverted))
	}
	for _, c := range res.Conflicts {
		fmt.Fprintf(os.Stderr, "  %s\n%s", termsafe.Line(c.Path), termsafe.Escape(c.Diff))
	}
	if force {
		fmt.Fprintf(os.Stderr, "deal with the files above and run scv undo again\n")
	} else {
		fmt.Fprintf(os.Stderr, "run again with --force to revert them too (their changes are lost)\n")
	}
}
