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
	"scv/internal/termsafe"

	"scv/lsp"
	"scv/lsp/client"
	"scv/lsp/schema"
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
	Server    lsp.Options
	Session   schema.SessionStartParams
	Prompt    string
	Out       io.Writer // the answer
	Log       io.Writer // tool calls, approvals, usage, errors
	Approve   Approver
	Interrupt <-chan struct{} // each receive asks to cancel the turn
}

// Run runs the turn and returns the exit status.
func Run(ctx context.Context, opts Options) int {
	srv := lsp.NewServer(opts.Server)
	serverSide, clientSide := net.Pipe()
	serveCtx, stopServe := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- srv.ServeConn(serveCtx, serverSide) }()
	defer func() {
		stopServe()
		<-served
	}()

	r := &runner{opts: opts, wake: make(chan struct{}, 1)}
	c := client.New(clientSide, r.enqueue)
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
		ClientInfo: &schema.ClientInfo{Name: "scv-headless"},
	}, nil); err != nil {
		return ExitFailed, fmt.Errorf("initialize: %w", err)
	}
	_ = c.Notify(protocol.MethodInitialized, struct{}{})
	var snap schema.Snapshot
	if err := c.Call(ctx, schema.MethodSessionStart, r.opts.Session, &snap); err != nil {
		return ExitFailed, err
	}
	var started schema.TurnStartResult
	if err := c.Call(ctx, schema.MethodTurnStart, schema.TurnStartParams{SessionID: snap.SessionID, Prompt: &r.opts.Prompt}, &started); err != nil {
		return ExitFailed, err
	}
	status := r.follow(ctx, c, snap.SessionID, started.TurnID)
	_ = c.Call(ctx, protocol.MethodShutdown, nil, nil)
	_ = c.Notify(protocol.MethodExit, nil)
	return status, nil
}

// follow prints the turn's events until its terminal event.
func (r *runner) follow(ctx context.Context, c *client.Client, sessionID, turnID string) int {
	wroteText := false
	var text termsafe.Stream // the answer arrives in deltas
	for {
		select {
		case <-r.opts.Interrupt:
			fmt.Fprintln(r.opts.Log, "\nscv: cancelling the turn…")
			_ = c.Call(ctx, schema.MethodTurnCancel, schema.TurnCancelParams{SessionID: sessionID, TurnID: turnID}, nil)
			continue
		case <-c.Done():
			fmt.Fprintf(r.opts.Log, "scv: the server connection ended: %s\n", termsafe.Escape(fmt.Sprint(c.Err())))
			return ExitFailed
		case <-r.wake:
		}
		for _, n := range r.take() {
			switch n.Method {
			case schema.EvAssistantDelta:
				var p struct{ Content string }
				_ = json.Unmarshal(n.Params, &p)
				_, _ = io.WriteString(r.opts.Out, text.Write(p.Content))
				wroteText = true
			case schema.EvAssistantCompleted:
				if wroteText {
					_, _ = io.WriteString(r.opts.Out, text.Flush()+"\n")
					wroteText = false
				}
			case schema.EvToolProposed:
				var p struct{ Name, Arguments string }
				_ = json.Unmarshal(n.Params, &p)
				fmt.Fprintf(r.opts.Log, "→ %s %s\n", termsafe.Line(p.Name), oneLine(p.Arguments, 200))
			case schema.EvApprovalRequested:
				var p session.ApprovalRequest
				_ = json.Unmarshal(n.Params, &p)
				fmt.Fprintf(r.opts.Log, "? approval needed: %s (%s)\n%s\n", termsafe.Line(p.Name), termsafe.Line(p.Risk), indent(termsafe.Escape(p.Summary)))
				decision := r.opts.Approve(p)
				if err := c.Call(ctx, schema.MethodApprovalResolve, schema.ApprovalResolveParams{
					SessionID: sessionID, ApprovalID: p.ApprovalID, Decision: decision,
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
			case schema.EvTurnCompleted:
				_, _ = io.WriteString(r.opts.Out, text.Flush())
				var p struct {
					Steps int
					Usage struct{ InputTokens, OutputTokens int }
				}
				_ = json.Unmarshal(n.Params, &p)
				fmt.Fprintf(r.opts.Log, "— done in %d step(s); tokens: %d in, %d out\n", p.Steps, p.Usage.InputTokens, p.Usage.OutputTokens)
				return ExitCompleted
			case schema.EvTurnCancelled:
				_, _ = io.WriteString(r.opts.Out, text.Flush())
				fmt.Fprintln(r.opts.Log, "— cancelled")
				return ExitCancelled
			case schema.EvTurnFailed:
				_, _ = io.WriteString(r.opts.Out, text.Flush())
				var p struct{ Code, Message string }
				_ = json.Unmarshal(n.Params, &p)
				fmt.Fprintf(r.opts.Log, "— failed (%s): %s\n", termsafe.Line(p.Code), termsafe.Escape(p.Message))
				return ExitFailed
			}
		}
	}
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
