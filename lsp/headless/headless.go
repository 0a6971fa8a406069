// Package headless runs one turn without an editor: it drives an lsp
// server in-process over a pipe, streams the answer to a writer and shows
// tool calls and approvals on another. `scv exec` and `scv demo` use it,
// so they exercise exactly the code path editors do. Everything the model,
// a tool or the server says is passed through termsafe before it is
// printed.
package headless

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"

	"go.lsp.dev/protocol"
	"scv/internal/notice"
	"scv/internal/termsafe"
	"scv/internal/turnchanges"

	"scv/lsp"
	"scv/lsp/client"
	"scv/lsp/schema"
	"scv/runtime/config"
	"scv/runtime/session"
)

// Exit statuses of a headless turn.
const (
	ExitCompleted = 0
	ExitFailed    = 1
	ExitCancelled = 130
)

// Approver answers an approval request: it returns approve, deny or
// approve-session.
type Approver func(req session.ApprovalRequest) string

// Options describe one headless turn.
type Options struct {
	Server lsp.Options
	// Conn, when set, is a connection to a running server (the daemon)
	// used instead of serving Server in-process; Run closes it.
	Conn io.ReadWriteCloser
	// Flags, with Conn, are the command's session flags, which bind the
	// session on the daemon as a forwarding scv lsp's do.
	Flags *config.Overrides
	// Resume names a session to attach to and continue instead of
	// starting one with Session.
	Resume    string
	Session   schema.SessionStartParams
	Prompt    string
	Out       io.Writer // the answer
	Log       io.Writer // tool calls, approvals, usage, errors
	Approve   Approver
	Interrupt <-chan struct{} // each receive asks to cancel the turn
}

// Serve runs an lsp server with opts in this process and returns the
// client's end of a pipe to it; stop ends the server and waits for it.
func Serve(ctx context.Context, opts lsp.Options) (conn net.Conn, stop func()) {
	srv := lsp.NewServer(opts)
	serverSide, clientSide := net.Pipe()
	serveCtx, stopServe := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- srv.ServeConn(serveCtx, serverSide) }()
	return clientSide, func() {
		stopServe()
		<-served
	}
}

// Run runs the turn and returns the exit status.
func Run(ctx context.Context, opts Options) int {
	conn := opts.Conn
	if conn == nil {
		var stop func()
		conn, stop = Serve(ctx, opts.Server)
		defer stop()
	}
	r := &runner{opts: opts, wake: make(chan struct{}, 1)}
	c := client.New(conn, r.enqueue)
	defer c.Close()
	status, err := r.run(ctx, c)
	if err != nil {
		fmt.Fprintf(opts.Log, "scv: %s\n", termsafe.Escape(err.Error()))
	}
	return status
}

type runner struct {
	opts    Options
	mu      sync.Mutex
	pending []client.Notification
	wake    chan struct{}
}

// enqueue hands notifications from the client's read goroutine to follow.
// The list is unbounded because follow calls the server while handling
// some of them, and the replies arrive behind the notifications.
func (r *runner) enqueue(n client.Notification) {
	r.mu.Lock()
	r.pending = append(r.pending, n)
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

func (r *runner) take() []client.Notification {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.pending
	r.pending = nil
	return out
}

func (r *runner) run(ctx context.Context, c *client.Client) (int, error) {
	if err := c.Call(ctx, protocol.MethodInitialize, schema.InitializeParams{
		ClientInfo:            &schema.ClientInfo{Name: "scv-headless"},
		InitializationOptions: &schema.InitializationOptions{SCV: &schema.ClientOptions{Flags: r.opts.Flags}},
	}, nil); err != nil {
		return ExitFailed, fmt.Errorf("initialize: %w", err)
	}
	_ = c.Notify(protocol.MethodInitialized, struct{}{})
	defer func() {
		_ = c.Call(ctx, protocol.MethodShutdown, nil, nil)
		_ = c.Notify(protocol.MethodExit, nil)
	}()
	var snap schema.Snapshot
	if r.opts.Resume != "" {
		// No replay: the turn's own events are what exec prints.
		if err := c.Call(ctx, schema.MethodSessionAttach, schema.SessionAttachParams{SessionID: r.opts.Resume}, &snap); err != nil {
			return ExitFailed, err
		}
	} else if err := c.Call(ctx, schema.MethodSessionStart, r.opts.Session, &snap); err != nil {
		return ExitFailed, err
	}
	var started schema.TurnStartResult
	if err := c.Call(ctx, schema.MethodTurnStart, schema.TurnStartParams{SessionID: snap.SessionID, Prompt: &r.opts.Prompt}, &started); err != nil {
		return ExitFailed, err
	}
	t := &ownTurn{sessionID: snap.SessionID, turnID: started.TurnID}
	if started.Entry != nil {
		// A resumed session may be running another window's turn: the
		// prompt waits in its queue until it is dequeued as our turn.
		t.queued = *started.Entry
		fmt.Fprintf(r.opts.Log, "scv: a turn is running in session %s; the prompt is queued (%s)\n", termsafe.Line(snap.SessionID), termsafe.Line(started.Entry.QueueID))
	}
	return r.follow(ctx, c, t), nil
}

// ownTurn is the turn exec follows. Until a queued prompt is dequeued,
// turnID is empty and queued names its queue entry.
type ownTurn struct {
	sessionID string
	turnID    string
	queued    schema.QueueEntry
	// ended holds the exit status once the turn's terminal event said its
	// changes follow (changesPending): exec prints them before it exits.
	ended *int
}

// owns reports whether an event of turn id belongs to the followed turn.
// A shared session carries other windows' turns too.
func (t *ownTurn) owns(id string) bool { return t.turnID != "" && id == t.turnID }

// interrupt cancels the turn, or withdraws the prompt still queued; it
// reports whether nothing is left to wait for.
func (r *runner) interrupt(ctx context.Context, c *client.Client, t *ownTurn) bool {
	if t.turnID == "" {
		fmt.Fprintln(r.opts.Log, "\nscv: withdrawing the queued prompt…")
		rev := t.queued.Revision
		err := c.Call(ctx, schema.MethodQueueRemove, schema.QueueEditParams{SessionID: t.sessionID, QueueID: t.queued.QueueID, Revision: &rev}, nil)
		if err == nil {
			fmt.Fprintln(r.opts.Log, "— cancelled")
			return true
		}
		// Dequeued meanwhile: its turn's events follow; cancel that.
		return false
	}
	fmt.Fprintln(r.opts.Log, "\nscv: cancelling the turn…")
	_ = c.Call(ctx, schema.MethodTurnCancel, schema.TurnCancelParams{SessionID: t.sessionID, TurnID: t.turnID}, nil)
	return false
}

// follow prints the turn's events until its terminal event.
func (r *runner) follow(ctx context.Context, c *client.Client, t *ownTurn) int {
	wroteText := false
	var text termsafe.Stream // the answer arrives in deltas
	for {
		select {
		case <-r.opts.Interrupt:
			if r.interrupt(ctx, c, t) {
				return ExitCancelled
			}
			continue
		case <-c.Done():
			fmt.Fprintf(r.opts.Log, "scv: the server connection ended: %s\n", termsafe.Escape(fmt.Sprint(c.Err())))
			return ExitFailed
		case <-r.wake:
		}
		for _, n := range r.take() {
			var head struct {
				SessionID string `json:"sessionId"`
				TurnID    string `json:"turnId"`
				QueueID   string `json:"queueId"`
			}
			_ = json.Unmarshal(n.Params, &head)
			if head.SessionID != t.sessionID {
				continue
			}
			switch n.Method {
			case schema.EvQueueDequeued:
				if t.turnID == "" && head.QueueID == t.queued.QueueID {
					t.turnID = head.TurnID
				}
				continue
			case schema.EvSessionClosed:
				_, _ = io.WriteString(r.opts.Out, text.Flush())
				fmt.Fprintln(r.opts.Log, "— the session was closed")
				return ExitFailed
			}
			if !t.owns(head.TurnID) {
				continue
			}
			if status, done := r.show(ctx, c, t, n, &text, &wroteText); done {
				return status
			}
		}
	}
}

// show prints one event of the followed turn; done reports its end.
func (r *runner) show(ctx context.Context, c *client.Client, t *ownTurn, n client.Notification, text *termsafe.Stream, wroteText *bool) (status int, done bool) {
	switch n.Method {
	case schema.EvAssistantDelta:
		var p struct{ Content string }
		_ = json.Unmarshal(n.Params, &p)
		_, _ = io.WriteString(r.opts.Out, text.Write(p.Content))
		*wroteText = true
	case schema.EvAssistantCompleted:
		if *wroteText {
			_, _ = io.WriteString(r.opts.Out, text.Flush()+"\n")
			*wroteText = false
		}
	case schema.EvToolProposed:
		var p struct{ Name, Arguments string }
		_ = json.Unmarshal(n.Params, &p)
		fmt.Fprintf(r.opts.Log, "→ %s %s\n", termsafe.Line(p.Name), oneLine(p.Arguments, 200))
	case schema.EvApprovalRequested:
		var p session.ApprovalRequest
		_ = json.Unmarshal(n.Params, &p)
		fmt.Fprintf(r.opts.Log, "? approval needed: %s (%s)\n%s\n", termsafe.Line(p.Name), termsafe.Line(p.Risk), indent(termsafe.Escape(p.Summary)))
		for _, l := range notice.Approval(p.Approval) {
			fmt.Fprintf(r.opts.Log, "  %s\n", l)
		}
		decision := r.opts.Approve(p)
		if err := c.Call(ctx, schema.MethodApprovalResolve, schema.ApprovalResolveParams{
			SessionID: t.sessionID, ApprovalID: p.ApprovalID, Decision: decision,
		}, nil); err != nil {
			fmt.Fprintf(r.opts.Log, "scv: resolve approval: %s\n", termsafe.Escape(err.Error()))
		}
	case schema.EvApprovalResolved:
		var p struct{ Decision string }
		_ = json.Unmarshal(n.Params, &p)
		fmt.Fprintf(r.opts.Log, "  decision: %s\n", termsafe.Line(p.Decision))
	case schema.EvToolCompleted:
		var p struct {
			Name      string
			Success   bool
			Output    string
			Truncated bool
		}
		_ = json.Unmarshal(n.Params, &p)
		mark := "✓"
		if !p.Success {
			mark = "✗"
		}
		fmt.Fprintf(r.opts.Log, "%s %s: %s\n", mark, termsafe.Line(p.Name), oneLine(p.Output, 200))
	case schema.EvContextCompacted:
		fmt.Fprintf(r.opts.Log, "(older messages were dropped to fit the context window)\n")
	case schema.EvTurnChanges:
		var p schema.TurnChangesEventParams
		_ = json.Unmarshal(n.Params, &p)
		_, _ = io.WriteString(r.opts.Log, turnchanges.Text(p.SessionID, p.TurnChanges))
		if t.ended != nil {
			return *t.ended, true
		}
	case schema.EvTurnCompleted:
		_, _ = io.WriteString(r.opts.Out, text.Flush())
		var p struct {
			Steps          int
			Usage          struct{ InputTokens, OutputTokens int }
			ChangesPending bool
		}
		_ = json.Unmarshal(n.Params, &p)
		fmt.Fprintf(r.opts.Log, "— done in %d step(s); tokens: %d in, %d out\n", p.Steps, p.Usage.InputTokens, p.Usage.OutputTokens)
		r.showTurnEndNotice(n.Params)
		return t.end(ExitCompleted, p.ChangesPending)
	case schema.EvTurnCancelled:
		_, _ = io.WriteString(r.opts.Out, text.Flush())
		var p struct{ ChangesPending bool }
		_ = json.Unmarshal(n.Params, &p)
		fmt.Fprintln(r.opts.Log, "— cancelled")
		r.showTurnEndNotice(n.Params)
		return t.end(ExitCancelled, p.ChangesPending)
	case schema.EvTurnFailed:
		_, _ = io.WriteString(r.opts.Out, text.Flush())
		var p struct {
			Code, Message  string
			ChangesPending bool
		}
		_ = json.Unmarshal(n.Params, &p)
		fmt.Fprintf(r.opts.Log, "— failed (%s): %s\n", termsafe.Line(p.Code), termsafe.Escape(p.Message))
		r.showTurnEndNotice(n.Params)
		return t.end(ExitFailed, p.ChangesPending)
	}
	return 0, false
}

// showTurnEndNotice shows the notice a turn's terminal event carries (its
// session's file is nearly full), under the turn's end.
func (r *runner) showTurnEndNotice(params json.RawMessage) {
	if line := notice.TurnEnd(params); line != "" {
		fmt.Fprintln(r.opts.Log, line)
	}
}

// end is the turn's terminal event: done, unless its changes follow.
func (t *ownTurn) end(status int, changesPending bool) (int, bool) {
	if changesPending {
		t.ended = &status
		return 0, false
	}
	return status, true
}

// oneLine shows model or tool text on one line of at most max bytes: its
// control characters escaped first (so a CR is seen, not folded into a
// space), then its whitespace folded.
func oneLine(s string, max int) string {
	return termsafe.Clip(strings.Join(strings.Fields(termsafe.Escape(s)), " "), max)
}

func indent(s string) string {
	if s == "" {
		return ""
	}
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

// TerminalApprover asks on in/out: y approves, a approves for the session,
// anything else (or end of input) denies.
func TerminalApprover(in io.Reader, out io.Writer) Approver {
	lines := bufio.NewScanner(in)
	return func(req session.ApprovalRequest) string {
		fmt.Fprintf(out, "  approve %s? [y]es / [n]o / [a]lways this session: ", termsafe.Line(req.Name))
		if !lines.Scan() {
			fmt.Fprintln(out)
			return session.DecisionDeny
		}
		switch strings.ToLower(strings.TrimSpace(lines.Text())) {
		case "y", "yes":
			return session.DecisionApprove
		case "a", "always":
			return session.DecisionApproveSession
		}
		return session.DecisionDeny
	}
}

// FixedApprover answers every request with decision, saying so on out.
func FixedApprover(decision string, out io.Writer, why string) Approver {
	return func(session.ApprovalRequest) string {
		fmt.Fprintf(out, "  (%s)\n", why)
		return decision
	}
}
