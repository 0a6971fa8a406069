package lsp_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"scv/internal/fakeopenai"
	"scv/lsp/client"
	"scv/lsp/lsptest"
	"scv/lsp/schema"
	"scv/runtime/provider"
	"scv/runtime/session"
)

// fakeBuffers is an editor's side of scv/file/read and write: it answers
// reads from its buffers and keeps writes there, never on disk.
type fakeBuffers struct {
	mu      sync.Mutex
	buffers map[string]string // absolute path → text
	reads   []string          // paths asked for, in order
	writes  []string
}

func serveBuffers(ed *lsptest.Editor, buffers map[string]string) *fakeBuffers {
	b := &fakeBuffers{buffers: buffers}
	ed.Client().HandleRequests(b.handle)
	return b
}

func (b *fakeBuffers) handle(_ context.Context, method string, params json.RawMessage) (any, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch method {
	case schema.MethodFileRead:
		var p schema.FileReadParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		b.reads = append(b.reads, p.Path)
		text, ok := b.buffers[p.Path]
		if !ok {
			return nil, &client.Error{Code: -32002, Message: "no buffer for " + p.Path}
		}
		return schema.FileReadResult{Content: text}, nil
	case schema.MethodFileWrite:
		var p schema.FileWriteParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		b.writes = append(b.writes, p.Path)
		b.buffers[p.Path] = p.Content
		return schema.Empty{}, nil
	}
	return nil, &client.Error{Code: -32601, Message: "no " + method}
}

func (b *fakeBuffers) seen() (reads, writes []string, buffers map[string]string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	copied := map[string]string{}
	for k, v := range b.buffers {
		copied[k] = v
	}
	return append([]string(nil), b.reads...), append([]string(nil), b.writes...), copied
}

func startTurnServing(t *testing.T, ed *lsptest.Editor, sid, prompt string) schema.TurnStartResult {
	t.Helper()
	var res schema.TurnStartResult
	ed.MustCall(schema.MethodTurnStart, schema.TurnStartParams{SessionID: sid, Prompt: &prompt,
		FileAccess: &schema.FileAccess{Read: true, Write: true}}, &res)
	return res
}

// A prompt sent with fileAccess has its turn's file tools read the
// editor's buffer and write into it, after confinement and approval; the
// disk is left alone.
func TestFileToolsGoThroughTheEditorThatPrompted(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		env.WriteFile("notes.txt", "on disk\n")
		notes := filepath.Join(env.Work, "notes.txt")
		env.OpenAI.Enqueue(
			fakeopenai.Reply{ToolCalls: []provider.ToolCall{
				{ID: "call_read", Name: "read_file", Arguments: `{"path":"notes.txt"}`},
				{ID: "call_out", Name: "read_file", Arguments: `{"path":"../outside.txt"}`},
			}},
			toolReply("call_write", "write_file", map[string]string{"path": "notes.txt", "content": "from the agent\n"}),
			fakeopenai.Reply{Chunks: []string{"done"}},
		)
		ed := env.Connect()
		buffers := serveBuffers(ed, map[string]string{notes: "unsaved edit\n"})
		init := ed.Initialize()
		caps := init.Capabilities.Experimental.SCV
		if strings.Join(caps.ClientRequests, ",") != schema.MethodFileRead+","+schema.MethodFileWrite || caps.FileRequestTimeoutMs <= 0 {
			t.Errorf("initialize advertises clientRequests %v, fileRequestTimeoutMs %d", caps.ClientRequests, caps.FileRequestTimeoutMs)
		}
		sid := ed.StartSession("", nil).SessionID
		turn := startTurnServing(t, ed, sid, "rewrite notes").TurnID

		asked := decodeApproval(t, ed.AwaitNotification(schema.EvApprovalRequested, lsptest.ForTurn(turn), 0))
		// The proposal shows what the write replaces, as the disk holds it.
		proposed := ed.AwaitNotification(schema.EvToolProposed, func(n lsptest.Note) bool { return n.Str("callId") == "call_write" }, 0)
		if proposed.Str("oldText") != "on disk\n" {
			t.Errorf("tool/proposed = %s, want oldText from the disk", proposed.Params)
		}
		if _, writes, _ := buffers.seen(); len(writes) != 0 {
			t.Fatalf("the editor was asked to write before the approval: %v", writes)
		}
		ed.Resolve(sid, asked.ApprovalID, session.DecisionApprove)
		ed.ExpectTerminal(turn, schema.EvTurnCompleted)

		if got := toolResult(t, env, 1, "call_read"); !strings.Contains(got, "unsaved edit") {
			t.Errorf("read_file told the model %q, want the editor's buffer", got)
		}
		if got := toolResult(t, env, 1, "call_out"); !strings.Contains(got, "outside") {
			t.Errorf("read_file outside the workspace told the model %q", got)
		}
		reads, writes, after := buffers.seen()
		// read_file, then write_file's before-text: both from the buffer.
		if strings.Join(reads, ",") != notes+","+notes || strings.Join(writes, ",") != notes {
			t.Errorf("the editor served reads %v and writes %v, want %s read twice and written once", reads, writes, notes)
		}
		if after[notes] != "from the agent\n" {
			t.Errorf("the editor's buffer holds %q", after[notes])
		}
		if got := env.ReadFile("notes.txt"); got != "on disk\n" {
			t.Errorf("notes.txt on disk = %q; the write should have gone to the editor", got)
		}
	})
}

// Through the daemon, a queued prompt's turn reads through the window
// that queued it, not the one whose turn was running; once that window
// has gone, its turn falls back to the disk.
func TestFileAccessFollowsThePromptsWindow(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		if !env.ServedByDaemon() {
			t.Skip("two windows share a session only through the daemon")
		}
		env.WriteFile("notes.txt", "on disk\n")
		notes := filepath.Join(env.Work, "notes.txt")
		first := env.Connect()
		firstBuffers := serveBuffers(first, map[string]string{notes: "first window\n"})
		first.Initialize()
		second := env.Connect()
		secondBuffers := serveBuffers(second, map[string]string{notes: "second window\n"})
		second.Initialize()

		sid := first.StartSession("", nil).SessionID
		if _, err := second.Attach(sid, nil); err != nil {
			t.Fatal(err)
		}
		hold, release := env.Hold()
		env.OpenAI.Enqueue(
			fakeopenai.Reply{Chunks: []string{"working"}, Hold: hold},
			toolReply("call_second", "read_file", map[string]string{"path": "notes.txt"}),
			fakeopenai.Reply{Chunks: []string{"read"}},
		)
		running := startTurnServing(t, first, sid, "hold on").TurnID
		first.AwaitNotification(schema.EvAssistantDelta, lsptest.ForTurn(running), 0)
		queued := startTurnServing(t, second, sid, "read notes")
		if queued.Status != "queued" {
			t.Fatalf("the second prompt was %+v, want queued", queued)
		}
		release()
		dequeued := second.AwaitNotification(schema.EvQueueDequeued, lsptest.ForSession(sid), 0)
		second.ExpectTerminal(dequeued.Str("turnId"), schema.EvTurnCompleted)
		if got := toolResult(t, env, 2, "call_second"); !strings.Contains(got, "second window") {
			t.Errorf("the queued turn read %q, want the second window's buffer", got)
		}
		if reads, _, _ := firstBuffers.seen(); len(reads) != 0 {
			t.Errorf("the first window was asked to read %v", reads)
		}

		// A prompt whose window has gone reads the disk.
		hold, release = env.Hold()
		env.OpenAI.Enqueue(
			fakeopenai.Reply{Chunks: []string{"working"}, Hold: hold},
			toolReply("call_gone", "read_file", map[string]string{"path": "notes.txt"}),
			fakeopenai.Reply{Chunks: []string{"read again"}},
		)
		running = startTurnServing(t, first, sid, "hold on again").TurnID
		first.AwaitNotification(schema.EvAssistantDelta, lsptest.ForTurn(running), 0)
		if res := startTurnServing(t, second, sid, "read notes again"); res.Status != "queued" {
			t.Fatalf("the prompt was %+v, want queued", res)
		}
		second.Close()
		awaitClients(t, first, 1)
		release()
		first.ExpectTerminal(running, schema.EvTurnCompleted)
		dequeued = first.AwaitNotification(schema.EvQueueDequeued, func(n lsptest.Note) bool { return n.Str("turnId") != dequeued.Str("turnId") }, 0)
		first.ExpectTerminal(dequeued.Str("turnId"), schema.EvTurnCompleted)
		if got := toolResult(t, env, 5, "call_gone"); !strings.Contains(got, "on disk") {
			t.Errorf("the turn of a gone window read %q, want the disk", got)
		}
		if reads, _, _ := firstBuffers.seen(); len(reads) != 0 {
			t.Errorf("the first window was asked to read %v", reads)
		}
		if reads, _, _ := secondBuffers.seen(); len(reads) != 1 {
			t.Errorf("the second window was asked to read %v, want once", reads)
		}
	})
}

// awaitClients waits until the daemon counts n connections: a closed
// window's bridge ends on its own time.
func awaitClients(t *testing.T, ed *lsptest.Editor, n int) {
	t.Helper()
	deadline := time.Now().Add(ed.Env.Timeout)
	for {
		var st schema.DaemonStatus
		ed.MustCall(schema.MethodDaemonStatus, nil, &st)
		if st.Clients == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the daemon counts %d clients, want %d", st.Clients, n)
		}
		runtime.Gosched()
	}
}

// An editor's refusal fails that call with its message; an answer with
// data.code "unsupported" sends the call to the disk; neither ends the
// turn or the connection.
func TestFileAnswersThatRefuseOrDecline(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		env.WriteFile("locked.txt", "locked on disk\n")
		env.WriteFile("plain.txt", "plain on disk\n")
		env.OpenAI.Enqueue(
			fakeopenai.Reply{ToolCalls: []provider.ToolCall{
				{ID: "call_locked", Name: "read_file", Arguments: `{"path":"locked.txt"}`},
				{ID: "call_plain", Name: "read_file", Arguments: `{"path":"plain.txt"}`},
			}},
			fakeopenai.Reply{Chunks: []string{"done"}},
		)
		ed := env.Connect()
		unsupported, _ := json.Marshal(schema.ErrorData{Code: schema.CodeUnsupported})
		ed.Client().HandleRequests(func(_ context.Context, _ string, params json.RawMessage) (any, error) {
			var p schema.FileReadParams
			_ = json.Unmarshal(params, &p)
			if strings.HasSuffix(p.Path, "locked.txt") {
				return nil, &client.Error{Code: -32000, Message: "the buffer is locked"}
			}
			return nil, &client.Error{Code: -32601, Message: "no reads here", Data: unsupported}
		})
		ed.Initialize()
		sid := ed.StartSession("", nil).SessionID
		turn := startTurnServing(t, ed, sid, "read both").TurnID
		ed.ExpectTerminal(turn, schema.EvTurnCompleted)
		if got := toolResult(t, env, 1, "call_locked"); !strings.Contains(got, "the buffer is locked") {
			t.Errorf("a refused read told the model %q, want the editor's reason", got)
		}
		if got := toolResult(t, env, 1, "call_plain"); !strings.Contains(got, "plain on disk") {
			t.Errorf("a declined read told the model %q, want the disk's text", got)
		}
		ed.MustCall(schema.MethodSessionList, schema.SessionListParams{}, nil) // the connection lives
	})
}
