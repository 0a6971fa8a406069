package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"scv/bridge"
	"scv/internal/memrelease"
	"scv/internal/termsafe"
	"scv/lsp"
	"scv/runtime/config"
	"scv/runtime/session"
)

// runDaemon serves the shared daemon on the user's socket until SIGTERM or
// SIGINT, or until --idle-timeout passes with nothing to do.
func runDaemon(args []string) int {
	flags := flag.NewFlagSet("scv daemon", flag.ContinueOnError)
	socketFlag := flags.String("socket", "", "socket path (default $SCV_SOCKET or $SCV_HOME/server.sock)")
	idle := flags.Duration("idle-timeout", 0, "exit after this long with no connection and no running turn (0: never)")
	if flags.Parse(args) != nil {
		return 2
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "scv daemon: unexpected argument %q\n", flags.Arg(0))
		return 2
	}
	if *idle < 0 {
		fmt.Fprintf(os.Stderr, "scv daemon: --idle-timeout=%v must not be negative\n", *idle)
		return 2
	}
	socket, err := bridge.SocketPath(*socketFlag)
	if err != nil {
		fmt.Fprintf(os.Stderr, "scv daemon: %v\n", err)
		return 1
	}
	opts, cfg, err := serverOptions(lsp.ModeDaemon, config.Overrides{})
	if err != nil {
		fmt.Fprintf(os.Stderr, "scv daemon: %v\n", err)
		return 1
	}
	// The socket, its lock and the log live in $SCV_HOME (by default): it
	// must be a directory only this user can enter.
	if err := config.SecureHome(opts.Home); err != nil {
		fmt.Fprintf(os.Stderr, "scv daemon: %v\n", err)
		return 1
	}
	opts.Socket = socket
	opts.MaxConnections = bridge.MaxConnections
	opts.InitializeTimeout = bridge.HandshakeTimeout
	// A closed session's memory goes back to the system at once, so a
	// long-lived daemon returns to near its idle size.
	release := memrelease.New(nil)
	opts.OnSessionClosed = func(string) { release.Request() }

	l, err := bridge.Listen(socket)
	var running *bridge.AlreadyRunningError
	if errors.As(err, &running) {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "scv daemon: %v\n", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	srv := lsp.NewServer(opts)

	reapCtx, stopReaping := context.WithCancel(context.Background())
	var reaper sync.WaitGroup
	reaper.Add(3)
	go func() {
		defer reaper.Done()
		release.Run(reapCtx)
	}()
	go func() {
		defer reaper.Done()
		bridge.ReapIdleSessions(reapCtx, srv.Sessions().CloseIdle, time.Duration(cfg.Daemon.SessionIdleMinutes)*time.Minute, log)
	}()
	go func() {
		defer reaper.Done()
		srv.Sessions().RunRetention(reapCtx, cfg.Sessions.MaxCount, time.Duration(cfg.Sessions.MaxAgeDays)*24*time.Hour, session.RetentionInterval)
	}()
	err = l.Run(ctx, bridge.DaemonOptions{
		IdleTimeout: *idle,
		Serve: func(ctx context.Context, conn net.Conn) {
			if err := srv.ServeConn(ctx, conn); err != nil && !errors.Is(err, lsp.ErrExitWithoutShutdown) {
				log.Info("connection ended", "err", err)
			}
		},
		Shutdown: func(context.Context) { srv.Shutdown() },
		Busy:     srv.Busy,
		Log:      os.Stderr,
	})
	stopReaping()
	reaper.Wait()
	if err != nil {
		fmt.Fprintf(os.Stderr, "scv daemon: %v\n", err)
		return 1
	}
	return 0
}

// connectDaemon dials the daemon for a control command. Without a daemon
// (reported on stdout) or on an error it returns a nil conn and the exit
// code.
func connectDaemon(name, socketFlag string) (conn *net.UnixConn, socket string, code int) {
	socket, err := bridge.SocketPath(socketFlag)
	if err != nil {
		fmt.Fprintf(os.Stderr, "scv %s: %v\n", name, err)
		return nil, "", 1
	}
	conn, err = bridge.Connect(socket)
	if bridge.NoDaemon(err) {
		fmt.Printf("no daemon running (socket %s)\n", socket)
		return nil, socket, 1
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "scv %s: %v\n", name, err)
		return nil, socket, 1
	}
	return conn, socket, 0
}

// runStatus prints the daemon's pid, uptime, socket, connections and
// sessions, or "no daemon running" (exit 1).
func runStatus(args []string) int {
	flags := flag.NewFlagSet("scv status", flag.ContinueOnError)
	socketFlag := flags.String("socket", "", "socket path (default $SCV_SOCKET or $SCV_HOME/server.sock)")
	asJSON := flags.Bool("json", false, "print the daemon's answers as JSON")
	if flags.Parse(args) != nil {
		return 2
	}
	conn, _, code := connectDaemon("status", *socketFlag)
	if conn == nil {
		return code
	}
	c := bridge.NewClient(conn, nil)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), bridge.ControlTimeout)
	defer cancel()
	st, sessions, err := bridge.QueryStatus(ctx, c)
	if err != nil {
		fmt.Fprintf(os.Stderr, "scv status: %s\n", termsafe.Escape(err.Error()))
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		enc.Encode(map[string]any{"daemon": st, "sessions": sessions})
		return 0
	}
	bridge.WriteStatus(os.Stdout, st, sessions)
	return 0
}

// runStop asks the daemon to shut down gracefully (SIGTERM) and waits for
// its socket to go away.
func runStop(args []string) int {
	flags := flag.NewFlagSet("scv stop", flag.ContinueOnError)
	socketFlag := flags.String("socket", "", "socket path (default $SCV_SOCKET or $SCV_HOME/server.sock)")
	timeout := flags.Duration("timeout", bridge.StopTimeout, "how long to wait for the daemon to finish")
	if flags.Parse(args) != nil {
		return 2
	}
	conn, socket, code := connectDaemon("stop", *socketFlag)
	if conn == nil {
		return code
	}
	pid, err := bridge.StopDaemon(conn, socket, *timeout)
	if err != nil {
		fmt.Fprintf(os.Stderr, "scv stop: %v\n", err)
		return 1
	}
	fmt.Printf("scv daemon (pid %d) stopped\n", pid)
	return 0
}

// runAttach opens a terminal window on one of the daemon's sessions: it
// replays what the daemon still holds, follows live, and answers approvals
// typed on stdin (y, s, n, each optionally followed by an approval id; q
// leaves). Exit 0 when the user leaves or the session closes, 1 when the
// daemon goes away.
func runAttach(args []string) int {
	flags := flag.NewFlagSet("scv attach", flag.ContinueOnError)
	socketFlag := flags.String("socket", "", "socket path (default $SCV_SOCKET or $SCV_HOME/server.sock)")
	flags.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: scv attach [--socket path] [session id or unique prefix]")
		flags.PrintDefaults()
	}
	if flags.Parse(args) != nil {
		return 2
	}
	if flags.NArg() > 1 {
		flags.Usage()
		return 2
	}
	conn, _, code := connectDaemon("attach", *socketFlag)
	if conn == nil {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()

	// The terminal's descriptors are made pollable so that leaving never
	// waits on a read of stdin; stdout goes through the same poller because
	// it shares the terminal's (now non-blocking) mode.
	in, restoreIn, err := bridge.PollableFile(0, "/dev/stdin")
	if err != nil {
		fmt.Fprintf(os.Stderr, "scv attach: %v\n", err)
		return 1
	}
	defer restoreIn()
	out, restoreOut, err := bridge.PollableFile(1, "/dev/stdout")
	if err != nil {
		fmt.Fprintf(os.Stderr, "scv attach: %v\n", err)
		return 1
	}
	defer restoreOut()

	view := bridge.NewAttachView(out)
	c := bridge.NewClient(conn, view.Event)
	defer c.Close()
	a := bridge.NewAttachment(ctx, c, view, os.Stdout, os.Stderr)
	if code := a.Attach(flags.Arg(0)); code >= 0 {
		return code
	}
	lines, stopInput := bridge.ReadLines(in)
	defer stopInput()
	view.Printf("following session %s; answer approvals with y, s or n; q leaves", termsafe.Line(a.SessionID()))
	for {
		select {
		case <-ctx.Done():
			a.Detach()
			return 0
		case <-c.Done():
			view.Printf("the connection to the scv daemon was lost: %s", termsafe.Escape(fmt.Sprint(c.Err())))
			return 1
		case <-view.Closed():
			return 0
		case line, ok := <-lines:
			if !ok {
				lines = nil // stdin ended (not a terminal): just follow
				continue
			}
			if a.Command(strings.Fields(line)) {
				a.Detach()
				return 0
			}
		}
	}
}
