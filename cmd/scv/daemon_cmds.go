package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"scv/bridge"
	"scv/lsp"
	"scv/runtime/config"
)

const (
	// controlTimeout bounds each request status, stop and attach make.
	controlTimeout = 10 * time.Second
	// stopTimeout is how long `scv stop` waits by default for the daemon to
	// finish: its shutdown and flush bounds plus a margin.
	stopTimeout = bridge.ShutdownTimeout + bridge.FlushTimeout + 5*time.Second
	// stopPoll is how often `scv stop` looks whether the daemon is gone.
	stopPoll = 50 * time.Millisecond
	// Bounds of the period at which the daemon closes idle sessions.
	minSessionReap = time.Second
	maxSessionReap = time.Minute
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
	opts, err := serverOptions(lsp.ModeDaemon, config.Overrides{})
	if err != nil {
		fmt.Fprintf(os.Stderr, "scv daemon: %v\n", err)
		return 1
	}
	cfg, _, err := config.Load(config.LoadOptions{Home: opts.Home})
	if err != nil {
		fmt.Fprintf(os.Stderr, "scv daemon: %v\n", err)
		return 1
	}
	opts.Socket = socket
	opts.MaxConnections = bridge.MaxConnections

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
	reaper.Add(1)
	go func() {
		defer reaper.Done()
		reapIdleSessions(reapCtx, srv, time.Duration(cfg.Daemon.SessionIdleMinutes)*time.Minute, log)
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

// reapIdleSessions closes sessions that have had no window and no turn for
// maxIdle (daemon.session_idle_minutes), until ctx ends.
func reapIdleSessions(ctx context.Context, srv *lsp.Server, maxIdle time.Duration, log *slog.Logger) {
	if maxIdle <= 0 {
		return
	}
	t := time.NewTicker(min(max(maxIdle/10, minSessionReap), maxSessionReap))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if ids := srv.Sessions().CloseIdle(maxIdle); len(ids) > 0 {
				log.Info("closed idle sessions", "sessions", ids, "idleFor", maxIdle)
			}
		}
	}
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
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) {
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
	ctx, cancel := context.WithTimeout(context.Background(), controlTimeout)
	defer cancel()
	st, sessions, err := queryStatus(ctx, c)
	if err != nil {
		fmt.Fprintf(os.Stderr, "scv status: %v\n", err)
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		enc.Encode(map[string]any{"daemon": st, "sessions": sessions})
		return 0
	}
	writeStatus(os.Stdout, st, sessions)
	return 0
}

func queryStatus(ctx context.Context, c *bridge.Client) (bridge.DaemonStatus, []bridge.SessionSummary, error) {
	if _, err := c.Initialize(ctx, "scv status"); err != nil {
		return bridge.DaemonStatus{}, nil, err
	}
	st, err := bridge.Status(ctx, c)
	if err != nil {
		return st, nil, err
	}
	sessions, err := bridge.Sessions(ctx, c)
	return st, sessions, err
}

func writeStatus(w io.Writer, st bridge.DaemonStatus, sessions []bridge.SessionSummary) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "scv daemon running\n")
	fmt.Fprintf(tw, "  pid\t%d\n", st.PID)
	fmt.Fprintf(tw, "  version\t%s\n", st.Version)
	fmt.Fprintf(tw, "  uptime\t%v\n", (time.Duration(st.UptimeMs) * time.Millisecond).Round(time.Second))
	fmt.Fprintf(tw, "  socket\t%s\n", st.Socket)
	fmt.Fprintf(tw, "  connections\t%d (this query is one of them)\n", st.Clients)
	fmt.Fprintf(tw, "  sessions\t%d\n", len(sessions))
	tw.Flush()
	if len(sessions) == 0 {
		return
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tSTATE\tQUEUED\tWINDOWS\tMODEL\tCWD")
	for _, s := range sessions {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", s.SessionID, s.State, s.Queued, s.Clients, s.Model, s.Cwd)
	}
	tw.Flush()
}

// runStop asks the daemon to shut down gracefully (SIGTERM) and waits for
// its socket to go away.
func runStop(args []string) int {
	flags := flag.NewFlagSet("scv stop", flag.ContinueOnError)
	socketFlag := flags.String("socket", "", "socket path (default $SCV_SOCKET or $SCV_HOME/server.sock)")
	timeout := flags.Duration("timeout", stopTimeout, "how long to wait for the daemon to finish")
	if flags.Parse(args) != nil {
		return 2
	}
	conn, socket, code := connectDaemon("stop", *socketFlag)
	if conn == nil {
		return code
	}
	peer, peerErr := bridge.PeerPID(conn)
	c := bridge.NewClient(conn, nil)
	ctx, cancel := context.WithTimeout(context.Background(), controlTimeout)
	defer cancel()
	_, err := c.Initialize(ctx, "scv stop")
	var st bridge.DaemonStatus
	if err == nil {
		st, err = bridge.Status(ctx, c)
	}
	c.Close()
	switch {
	case err != nil:
		fmt.Fprintf(os.Stderr, "scv stop: %v\n", err)
		return 1
	case st.PID <= 1:
		fmt.Fprintf(os.Stderr, "scv stop: the daemon reported pid %d; not signalling it\n", st.PID)
		return 1
	case peerErr != nil || peer != st.PID:
		// A forwarded socket (ssh -L): the pid is on another host, or the
		// local relay's pid is not the daemon's.
		fmt.Fprintf(os.Stderr, "scv stop: %s is relayed by process %d, not served by the daemon (pid %d) itself; run scv stop where the daemon runs\n",
			socket, peer, st.PID)
		return 1
	}
	if err := syscall.Kill(st.PID, syscall.SIGTERM); err != nil {
		fmt.Fprintf(os.Stderr, "scv stop: signal the daemon (pid %d): %v\n", st.PID, err)
		return 1
	}
	// Polling is the only way to watch another process's files disappear.
	deadline := time.Now().Add(*timeout)
	for {
		_, statErr := os.Lstat(socket)
		if errors.Is(statErr, fs.ErrNotExist) || errors.Is(syscall.Kill(st.PID, 0), syscall.ESRCH) {
			fmt.Printf("scv daemon (pid %d) stopped\n", st.PID)
			return 0
		}
		if time.Now().After(deadline) {
			fmt.Fprintf(os.Stderr, "scv stop: the daemon (pid %d) did not finish within %v\n", st.PID, *timeout)
			return 1
		}
		time.Sleep(stopPoll)
	}
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
	a := &attachment{ctx: ctx, c: c, view: view}
	if code := a.attach(flags.Arg(0)); code >= 0 {
		return code
	}
	lines, stopInput := readLines(in)
	defer stopInput()
	view.Printf("following session %s; answer approvals with y, s or n; q leaves", a.sessionID)
	for {
		select {
		case <-ctx.Done():
			a.detach()
			return 0
		case <-c.Done():
			view.Printf("the connection to the scv daemon was lost: %v", c.Err())
			return 1
		case <-view.Closed():
			return 0
		case line, ok := <-lines:
			if !ok {
				lines = nil // stdin ended (not a terminal): just follow
				continue
			}
			if a.command(strings.Fields(line)) {
				a.detach()
				return 0
			}
		}
	}
}

type attachment struct {
	ctx       context.Context
	c         *bridge.Client
	view      *bridge.AttachView
	sessionID string
}

// attach picks the session and attaches with afterSeq 0 (everything the
// ring holds). It returns an exit code, or -1 to go on.
func (a *attachment) attach(want string) int {
	ctx, cancel := context.WithTimeout(a.ctx, controlTimeout)
	defer cancel()
	if _, err := a.c.Initialize(ctx, "scv attach"); err != nil {
		fmt.Fprintf(os.Stderr, "scv attach: %v\n", err)
		return 1
	}
	sessions, err := bridge.Sessions(ctx, a.c)
	if err != nil {
		fmt.Fprintf(os.Stderr, "scv attach: %v\n", err)
		return 1
	}
	id, code := pickSession(sessions, want)
	if id == "" {
		return code
	}
	a.sessionID = id
	var snap json.RawMessage
	if err := a.c.Call(ctx, "scv/session/attach", map[string]any{"sessionId": id, "afterSeq": 0}, &snap); err != nil {
		fmt.Fprintf(os.Stderr, "scv attach: %v\n", err)
		return 1
	}
	if err := a.view.Snapshot(snap); err != nil {
		fmt.Fprintf(os.Stderr, "scv attach: %v\n", err)
		return 1
	}
	return -1
}

// pickSession finds want (an id or a unique prefix) among sessions; with
// want empty, the only session. An empty id comes with the exit code.
func pickSession(sessions []bridge.SessionSummary, want string) (string, int) {
	var matches []bridge.SessionSummary
	for _, s := range sessions {
		if want == "" || strings.HasPrefix(s.SessionID, want) {
			matches = append(matches, s)
		}
		if want != "" && s.SessionID == want {
			return s.SessionID, 0
		}
	}
	switch {
	case len(sessions) == 0:
		fmt.Println("the daemon has no sessions")
		return "", 1
	case len(matches) == 1:
		return matches[0].SessionID, 0
	case len(matches) == 0:
		fmt.Fprintf(os.Stderr, "scv attach: no session %q; the daemon has:\n", want)
	default:
		fmt.Fprintln(os.Stderr, "scv attach: name one session (scv attach <session>):")
	}
	for _, s := range sessions {
		fmt.Fprintf(os.Stderr, "  %s  %s  %s\n", s.SessionID, s.State, s.Cwd)
	}
	return "", 2
}

// command runs one line typed by the user; it reports whether to leave.
func (a *attachment) command(words []string) bool {
	if len(words) == 0 {
		return false
	}
	decisions := map[string]string{"y": "approve", "yes": "approve", "s": "approve-session", "n": "deny", "no": "deny"}
	verb := strings.ToLower(words[0])
	if verb == "q" || verb == "quit" {
		return true
	}
	decision, ok := decisions[verb]
	if !ok {
		a.view.Printf("commands: y [approval] approve, s [approval] approve for the session, n [approval] deny, q leave")
		return false
	}
	pending := a.view.PendingApprovals()
	if len(pending) == 0 {
		a.view.Printf("no approval is waiting")
		return false
	}
	id := pending[0].ApprovalID
	if len(words) > 1 {
		id = words[1]
	}
	ctx, cancel := context.WithTimeout(a.ctx, controlTimeout)
	defer cancel()
	err := a.c.Call(ctx, "scv/approval/resolve", map[string]any{"sessionId": a.sessionID, "approvalId": id, "decision": decision}, nil)
	var rpcErr *bridge.RPCError
	switch {
	case errors.As(err, &rpcErr) && rpcErr.DataCode() == "approval_not_found":
		a.view.Printf("approval %s is no longer waiting (another window may have answered it)", id)
	case err != nil:
		a.view.Printf("could not answer approval %s: %v", id, err)
	}
	return false
}

func (a *attachment) detach() {
	ctx, cancel := context.WithTimeout(context.Background(), controlTimeout)
	defer cancel()
	a.c.Call(ctx, "scv/session/detach", map[string]any{"sessionId": a.sessionID}, nil)
}

// readLines delivers stdin's lines until it ends or stop is called; stop
// interrupts a pending read and waits for the reader.
func readLines(in *os.File) (<-chan string, func()) {
	lines := make(chan string)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(lines)
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-quit:
				return
			}
		}
	}()
	return lines, func() {
		close(quit)
		in.SetReadDeadline(time.Unix(1, 0)) // fails harmlessly on files that never block
		wg.Wait()
		in.SetReadDeadline(time.Time{})
	}
}
