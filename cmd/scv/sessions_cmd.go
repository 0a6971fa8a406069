package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"scv/bridge"
	"scv/cli/sessions"
	"scv/internal/termsafe"
	"scv/lsp"
	"scv/lsp/schema"
	"scv/runtime/config"
)

// runSessions is `scv sessions [--cwd DIR | --here] [--limit N] [--json]`,
// `scv sessions rm ID` and `scv sessions export ID`.
func runSessions(args []string) int {
	if len(args) > 0 {
		switch args[0] {
		case "rm":
			return runSessionsRemove(args[1:])
		case "export":
			return runSessionsExport(args[1:])
		}
	}
	fs := flag.NewFlagSet("scv sessions", flag.ContinueOnError)
	socketFlag := fs.String("socket", "", "daemon socket (default $SCV_SOCKET or $SCV_HOME/server.sock)")
	cwd := fs.String("cwd", "", "only the sessions of this directory (default: all)")
	here := fs.Bool("here", false, "only the sessions of the current directory")
	limit := fs.Int("limit", 0, "at most this many sessions (default: the server's page size)")
	cursor := fs.String("cursor", "", "the page after this cursor (printed under a full page)")
	asJSON := fs.Bool("json", false, "print the rows as JSON")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: scv sessions [flags]\n       scv sessions rm ID\n       scv sessions export ID > transcript.md")
		fs.PrintDefaults()
	}
	if fs.Parse(args) != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "scv sessions: unknown subcommand %q (rm, export)\n", fs.Arg(0))
		return 2
	}
	if *limit < 0 {
		fmt.Fprintf(os.Stderr, "scv sessions: --limit=%d must not be negative\n", *limit)
		return 2
	}
	params := schema.SessionListParams{Cwd: *cwd, Cursor: *cursor, Limit: *limit}
	if *here {
		params.Cwd = "."
	}
	if params.Cwd != "" {
		dir, err := filepath.Abs(params.Cwd)
		if err != nil {
			fmt.Fprintf(os.Stderr, "scv sessions: %v\n", err)
			return 1
		}
		params.Cwd = dir
	}
	return withSessions("sessions", *socketFlag, func(ctx context.Context, c *sessions.Conn) error {
		page, err := sessions.List(ctx, c, params)
		if err != nil {
			return err
		}
		if *asJSON {
			enc := json.NewEncoder(os.Stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(page)
		}
		sessions.WriteTable(os.Stdout, page, time.Now())
		return nil
	})
}

func runSessionsRemove(args []string) int {
	fs := flag.NewFlagSet("scv sessions rm", flag.ContinueOnError)
	socketFlag := fs.String("socket", "", "daemon socket (default $SCV_SOCKET or $SCV_HOME/server.sock)")
	if fs.Parse(args) != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: scv sessions rm ID")
		return 2
	}
	id := fs.Arg(0)
	return withSessions("sessions rm", *socketFlag, func(ctx context.Context, c *sessions.Conn) error {
		if err := sessions.Remove(ctx, c, id); err != nil {
			return err
		}
		fmt.Printf("deleted session %s\n", termsafe.Line(id))
		return nil
	})
}

func runSessionsExport(args []string) int {
	fs := flag.NewFlagSet("scv sessions export", flag.ContinueOnError)
	socketFlag := fs.String("socket", "", "daemon socket (default $SCV_SOCKET or $SCV_HOME/server.sock)")
	if fs.Parse(args) != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: scv sessions export ID > transcript.md")
		return 2
	}
	id := fs.Arg(0)
	return withSessions("sessions export", *socketFlag, func(ctx context.Context, c *sessions.Conn) error {
		t, err := sessions.Fetch(ctx, c, id)
		if err != nil {
			return err
		}
		_, err = io.WriteString(os.Stdout, sessions.Render(t))
		return err
	})
}

// withSessions connects a session command to the daemon, or to a server
// in this process when no daemon runs, and runs do; errors are reported as
// `scv name: …` with exit status 1.
func withSessions(name, socketFlag string, do func(context.Context, *sessions.Conn) error) int {
	socket, err := bridge.SocketPath(socketFlag)
	if err != nil {
		fmt.Fprintf(os.Stderr, "scv %s: %v\n", name, err)
		return 1
	}
	inProcess := func() (lsp.Options, error) {
		opts, _, err := serverOptions(lsp.ModeStdio, config.Overrides{})
		return opts, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), sessionsTimeout)
	defer cancel()
	c, err := sessions.Connect(ctx, socket, inProcess, "scv "+name)
	if err == nil {
		defer c.Close()
		err = do(ctx, c)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "scv %s: %s\n", name, termsafe.Escape(err.Error()))
		return 1
	}
	return 0
}

// sessionsTimeout bounds a session command: a listing, a deletion or the
// replay of one transcript.
const sessionsTimeout = time.Minute
