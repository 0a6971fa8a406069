package bridge

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"scv/internal/termsafe"
	"scv/lsp/client"
	"scv/lsp/schema"
	"scv/runtime/session"
)

// ControlTimeout bounds each request status, stop and attach make.
const ControlTimeout = 10 * time.Second

// Attachment is `scv attach`: a terminal following one daemon session and
// answering its approvals.
type Attachment struct {
	ctx       context.Context
	c         *Client
	view      *AttachView
	out, errs io.Writer // messages for the user
	sessionID string
}

// NewAttachment prepares an attachment over c, whose notifications go to view.
func NewAttachment(ctx context.Context, c *Client, view *AttachView, out, errs io.Writer) *Attachment {
	return &Attachment{ctx: ctx, c: c, view: view, out: out, errs: errs}
}

// SessionID is the attached session.
func (a *Attachment) SessionID() string { return a.sessionID }

// Attach attaches to want (an exact id, or else a unique prefix of a
// listed session; empty: the only session) with its whole transcript
// replayed. It returns an exit code, or -1 to go on.
func (a *Attachment) Attach(want string) int {
	ctx, cancel := context.WithTimeout(a.ctx, ControlTimeout)
	defer cancel()
	if _, err := a.c.Initialize(ctx, "scv attach"); err != nil {
		fmt.Fprintf(a.errs, "scv attach: %s\n", termsafe.Escape(err.Error()))
		return 1
	}
	// An exact id is asked for directly: a stored session need not be on
	// the first page of the list.
	if want != "" {
		err := a.attach(ctx, want)
		if e, ok := client.AsError(err); !ok || e.DataCode() != schema.CodeSessionNotFound {
			return a.attached(err)
		}
	}
	sessions, err := Sessions(ctx, a.c)
	if err != nil {
		fmt.Fprintf(a.errs, "scv attach: %s\n", termsafe.Escape(err.Error()))
		return 1
	}
	id, code := pickSession(sessions, want, a.out, a.errs)
	if id == "" {
		return code
	}
	return a.attached(a.attach(ctx, id))
}

// attach attaches to session id with the whole transcript replayed (the
// ring after seq 0 from a server that does not store sessions) and shows
// the snapshot.
func (a *Attachment) attach(ctx context.Context, id string) error {
	var snap json.RawMessage
	params := schema.SessionAttachParams{SessionID: id, AfterSeq: schema.Ptr[uint64](0), Replay: schema.ReplayFull}
	if err := a.c.Call(ctx, schema.MethodSessionAttach, params, &snap); err != nil {
		return err
	}
	a.sessionID = id
	return a.view.Snapshot(snap)
}

// attached reports the outcome of attach as Attach's exit code.
func (a *Attachment) attached(err error) int {
	if err != nil {
		fmt.Fprintf(a.errs, "scv attach: %s\n", termsafe.Escape(err.Error()))
		return 1
	}
	return -1
}

// pickSession finds want (an id or a unique prefix) among sessions; with
// want empty, the only session. An empty id comes with the exit code.
func pickSession(sessions []SessionSummary, want string, out, errs io.Writer) (string, int) {
	var matches []SessionSummary
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
		fmt.Fprintln(out, "the daemon has no sessions")
		return "", 1
	case len(matches) == 1:
		return matches[0].SessionID, 0
	case len(matches) == 0:
		fmt.Fprintf(errs, "scv attach: no session %q; the daemon has:\n", want)
	default:
		fmt.Fprintln(errs, "scv attach: name one session (scv attach <session>):")
	}
	for _, s := range sessions {
		fmt.Fprintf(errs, "  %s  %s  %s\n", termsafe.Line(s.SessionID), termsafe.Line(s.State), termsafe.Line(s.Cwd))
	}
	return "", 2
}

// Command runs one line typed by the user; it reports whether to leave.
func (a *Attachment) Command(words []string) bool {
	if len(words) == 0 {
		return false
	}
	decisions := map[string]string{"y": session.DecisionApprove, "yes": session.DecisionApprove, "s": session.DecisionApproveSession, "n": session.DecisionDeny, "no": session.DecisionDeny}
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
	ctx, cancel := context.WithTimeout(a.ctx, ControlTimeout)
	defer cancel()
	err := a.c.Call(ctx, schema.MethodApprovalResolve, schema.ApprovalResolveParams{SessionID: a.sessionID, ApprovalID: id, Decision: decision}, nil)
	var rpcErr *RPCError
	switch {
	case errors.As(err, &rpcErr) && rpcErr.DataCode() == "approval_not_found":
		a.view.Printf("approval %s is no longer waiting (another window may have answered it)", termsafe.Line(id))
	case err != nil:
		a.view.Printf("could not answer approval %s: %s", termsafe.Line(id), termsafe.Escape(err.Error()))
	}
	return false
}

// Detach stops following the session.
func (a *Attachment) Detach() {
	ctx, cancel := context.WithTimeout(context.Background(), ControlTimeout)
	defer cancel()
	a.c.Call(ctx, schema.MethodSessionDetach, schema.SessionRef{SessionID: a.sessionID}, nil)
}

// ReadLines delivers stdin's lines until it ends or stop is called; stop
// interrupts a pending read and waits for the reader.
func ReadLines(in *os.File) (<-chan string, func()) {
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
