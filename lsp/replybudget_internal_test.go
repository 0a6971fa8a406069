package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"scv/internal/fakeopenai"
	"scv/lsp/schema"
	"scv/lsp/wire"
	"scv/runtime/config"
	"scv/runtime/provider"
)

// rawClient speaks to a server over one end of a pipe, frame by frame,
// and reads only when the test says so.
type rawClient struct {
	t    *testing.T
	conn net.Conn
	r    *wire.Reader
}

func (c *rawClient) send(id int, method string, params any) {
	c.t.Helper()
	raw, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := c.conn.Write(wire.AppendFrame(nil, raw)); err != nil {
		c.t.Fatalf("send %s: %v", method, err)
	}
}

// until reads frames until one satisfies match and returns it.
func (c *rawClient) until(what string, match func(msg map[string]json.RawMessage) bool) map[string]json.RawMessage {
	c.t.Helper()
	for {
		body, err := c.r.ReadFrame()
		if err != nil {
			c.t.Fatalf("waiting for %s: %v", what, err)
		}
		var msg map[string]json.RawMessage
		if err := json.Unmarshal(body, &msg); err != nil {
			c.t.Fatalf("waiting for %s: %v in %.200s", what, err, body)
		}
		if match(msg) {
			return msg
		}
	}
}

func (c *rawClient) result(id int, into any) {
	c.t.Helper()
	msg := c.until("reply "+itoa(id), func(m map[string]json.RawMessage) bool { return string(m["id"]) == itoa(id) })
	if e := msg["error"]; e != nil {
		c.t.Fatalf("reply %d: %s", id, e)
	}
	if err := json.Unmarshal(msg["result"], into); err != nil {
		c.t.Fatal(err)
	}
}

// bigTurn starts a session whose one turn writes a file of size bytes, so
// that its scv/turn/changes reply is about that large, and returns the
// session and turn ids once the turn completed.
func bigTurn(t *testing.T, c *rawClient, fake *fakeopenai.Server, work string, size int) (sid, tid string) {
	t.Helper()
	c.send(0, "initialize", map[string]any{})
	c.result(0, &map[string]any{})
	c.send(1, schema.MethodSessionStart, schema.SessionStartParams{Cwd: work})
	var started struct{ SessionID string }
	c.result(1, &started)
	args, _ := json.Marshal(map[string]string{"path": "big.txt", "content": strings.Repeat("x", size-1) + "\n"})
	fake.Enqueue(fakeopenai.Reply{ToolCalls: []provider.ToolCall{{ID: "w1", Name: "write_file", Arguments: string(args)}}},
		fakeopenai.Reply{Chunks: []string{"done"}})
	prompt := "write it"
	c.send(2, schema.MethodTurnStart, schema.TurnStartParams{SessionID: started.SessionID, Prompt: &prompt})
	var turn struct{ TurnID string }
	c.result(2, &turn)
	c.until("turn/completed", func(m map[string]json.RawMessage) bool {
		return string(m["method"]) == `"`+schema.EvTurnCompleted+`"`
	})
	return started.SessionID, turn.TurnID
}

// writeConfig points a server's home at the fake model and approves
// every tool call.
func writeConfig(t *testing.T, home string, fake *fakeopenai.Server) {
	t.Helper()
	toml := "[provider]\nkind = \"openai\"\nbase_url = \"" + fake.URL() + "\"\napi_key = \"test-key\"\nmodel = \"test-model\"\n" +
		"[agent]\napproval_policy = \"auto\"\n"
	if err := os.WriteFile(config.UserFile(home), []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A client that pipelines requests with large replies (scv/turn/changes,
// run off the read loop) and never reads them cannot make the server
// queue more than its outbound budget and the one reply that crossed it:
// replies in flight are charged like events, and the requests behind
// them wait.
func TestLargeRepliesInFlightStayWithinTheBudget(t *testing.T) {
	const budget, replySize = 256 << 10, 200 << 10
	srv, fake, work := replyServer(t, budget, 1<<30)
	c := dialRaw(t, srv)
	sid, tid := bigTurn(t, c, fake, work, replySize)
	pipelineChanges(t, srv, []*rawClient{c}, sid, tid)
	// The most ever held: the budget, and the one reply that crossed it
	// with its envelope.
	bound := budget + replySize + replySlack
	if peak := srv.outbound.Peak(); peak > bound {
		t.Fatalf("%d bytes were queued at once for a client that did not read, with a budget of %d (bound %d)", peak, budget, bound)
	}
}

// The process budget bounds what all connections hold together: two
// clients that do not read, each under its own budget, stop once the
// process's is spent, each past it by at most the reply it was building.
func TestConnectionsShareTheProcessOutboundBudget(t *testing.T) {
	const budget, process, replySize = 256 << 10, 256 << 10, 200 << 10
	srv, fake, work := replyServer(t, budget, process)
	a, b := dialRaw(t, srv), dialRaw(t, srv)
	sid, tid := bigTurn(t, a, fake, work, replySize)
	b.send(0, "initialize", map[string]any{})
	b.result(0, &map[string]any{})
	pipelineChanges(t, srv, []*rawClient{a, b}, sid, tid)
	bound := process + 2*(replySize+replySlack)
	if peak := srv.outbound.Peak(); peak > bound {
		t.Fatalf("two clients that did not read had %d bytes queued at once, with a process budget of %d (bound %d)", peak, process, bound)
	}
}

// replySlack covers a turn/changes reply's envelope and diff header
// beyond the changed file's size.
const replySlack = 16 << 10

// replyServer is a daemon-mode server (sessions shared by its
// connections) with the given outbound budgets.
func replyServer(t *testing.T, budget, process int) (*Server, *fakeopenai.Server, string) {
	t.Helper()
	fake := fakeopenai.New(t)
	home, work := t.TempDir(), t.TempDir()
	writeConfig(t, home, fake)
	srv := NewServer(Options{Home: home, Mode: ModeDaemon, Protocol: config.Protocol{MaxProcessOutboundBytes: process}})
	srv.opts.Protocol.OutboundQueueBytes = budget
	return srv, fake, work
}

func dialRaw(t *testing.T, srv *Server) *rawClient {
	t.Helper()
	serverSide, editor := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.ServeConn(context.Background(), serverSide) }()
	t.Cleanup(func() { editor.Close(); <-done })
	// A bound for a failing test only.
	if err := editor.SetDeadline(time.Now().Add(60 * time.Second)); err != nil {
		t.Fatal(err)
	}
	return &rawClient{t: t, conn: editor, r: wire.NewReader(editor, 16<<20)}
}

// pipelineChanges has every client send changesRequests scv/turn/changes
// for the turn without reading, waits until the server has stopped taking
// them on every connection, then reads every reply.
func pipelineChanges(t *testing.T, srv *Server, clients []*rawClient, sid, tid string) {
	t.Helper()
	const changesRequests = 24
	for _, c := range clients {
		wrote := make(chan struct{})
		go func() {
			defer close(wrote)
			for id := 100; id < 100+changesRequests; id++ {
				raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": schema.MethodTurnChanges,
					"params": schema.TurnChangesParams{SessionID: sid, TurnID: tid}})
				if _, err := c.conn.Write(wire.AppendFrame(nil, raw)); err != nil {
					return
				}
			}
		}()
		t.Cleanup(func() { <-wrote })
	}
	deadline := time.Now().Add(30 * time.Second)
	for !stalled(srv, len(clients)) {
		if time.Now().After(deadline) {
			t.Fatal("the replies never filled the budget")
		}
		time.Sleep(time.Millisecond) // polling another goroutine's progress, with a bound
	}
	for _, c := range clients {
		for got := 0; got < changesRequests; {
			body, err := c.r.ReadFrame()
			if err != nil {
				t.Fatalf("after %d replies: %v", got, err)
			}
			if bytes.Contains(body, []byte(`"id":1`)) && bytes.Contains(body, []byte(`"result"`)) {
				got++
			}
		}
	}
}

// stalled reports whether each of the server's n connections has stopped
// taking requests: its queue is full and no large reply is being built.
func stalled(srv *Server, n int) bool {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if len(srv.conns) != n {
		return false
	}
	for c := range srv.conns {
		if !c.out.Full() || len(c.largeTurn) > 0 {
			return false
		}
	}
	return true
}

// A model list as large as a hostile provider may send (up to 4 MiB of
// ids) makes scv/model/list a large reply too: a client pipelining it
// without reading is held to the budget and the one reply that crossed
// it, however many listings were waiting on the provider at once.
func TestPipelinedModelListsStayWithinTheBudget(t *testing.T) {
	const budget, lists = 64 << 10, 24
	srv, fake, work := replyServer(t, budget, 1<<30)
	ids := make([]string, 2000)
	for i := range ids {
		ids[i] = fmt.Sprintf("model-%04d-%s", i, strings.Repeat("m", 80))
	}
	fake.SetModels(ids...)
	replySize := 0
	for _, id := range ids {
		replySize += len(id) + len(`{"id":"","source":"provider"},`)
	}
	c := dialRaw(t, srv)
	c.send(0, "initialize", map[string]any{})
	c.result(0, &map[string]any{})
	c.send(1, schema.MethodSessionStart, schema.SessionStartParams{Cwd: work})
	var started struct{ SessionID string }
	c.result(1, &started)

	release := fake.HoldModels()
	defer release()
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		for id := 100; id < 100+lists; id++ {
			raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": schema.MethodModelList,
				"params": schema.SessionRef{SessionID: started.SessionID}})
			if _, err := c.conn.Write(wire.AppendFrame(nil, raw)); err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { <-wrote })
	// Every listing is in flight before the provider answers any.
	deadline := time.Now().Add(30 * time.Second)
	for inflightOf(srv) < lists {
		if time.Now().After(deadline) {
			t.Fatalf("only %d listings in flight", inflightOf(srv))
		}
		time.Sleep(time.Millisecond) // polling another goroutine's progress, with a bound
	}
	release()
	for !stalled(srv, 1) {
		if time.Now().After(deadline) {
			t.Fatal("the replies never filled the budget")
		}
		time.Sleep(time.Millisecond) // polling another goroutine's progress, with a bound
	}
	for got := 0; got < lists; {
		body, err := c.r.ReadFrame()
		if err != nil {
			t.Fatalf("after %d replies: %v", got, err)
		}
		if bytes.Contains(body, []byte(`"id":1`)) && bytes.Contains(body, []byte(`"models"`)) {
			got++
		}
	}
	bound := budget + replySize + replySlack
	if peak := srv.outbound.Peak(); peak > bound {
		t.Fatalf("%d bytes were queued at once for a client that did not read, with a budget of %d (bound %d)", peak, budget, bound)
	}
}

// inflightOf counts the requests in flight on the server's one connection.
func inflightOf(srv *Server) int {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	n := 0
	for c := range srv.conns {
		c.mu.Lock()
		n += len(c.inflight)
		c.mu.Unlock()
	}
	return n
}

// Connections that pipelined large requests and left without reading
// give every byte back: whatever they had queued, held or were building
// when they went, the process budget afterwards holds only what the
// connections still open have queued.
func TestAbusiveConnectionsGiveTheProcessBudgetBack(t *testing.T) {
	const budget, replySize = 64 << 10, 100 << 10
	srv, fake, work := replyServer(t, budget, 1<<30)
	a := dialRaw(t, srv)
	sid, tid := bigTurn(t, a, fake, work, replySize)
	for round := range 4 {
		b := dialRaw(t, srv)
		b.send(0, "initialize", map[string]any{})
		b.result(0, &map[string]any{})
		// Five replies overfill the budget: the server stops reading
		// with some queued, one being built and one waiting its turn.
		// Sent from a goroutine: a server that stops reading blocks the
		// pipe, and the close below ends the write.
		wrote := make(chan struct{})
		go func() {
			defer close(wrote)
			for id := 100; id < 105; id++ {
				raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": schema.MethodTurnChanges,
					"params": schema.TurnChangesParams{SessionID: sid, TurnID: tid}})
				if _, err := b.conn.Write(wire.AppendFrame(nil, raw)); err != nil {
					return
				}
			}
		}()
		// Leave mid-reply: read part of the first frame, then close.
		buf := make([]byte, 100+round*1000)
		if _, err := io.ReadFull(b.conn, buf); err != nil {
			t.Fatal(err)
		}
		b.conn.Close()
		<-wrote
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		srv.mu.Lock()
		open, queued := len(srv.conns), 0
		for c := range srv.conns {
			queued += c.out.Queued()
		}
		srv.mu.Unlock()
		used := srv.outbound.Used()
		if open == 1 && used == queued {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d connections open, the process budget holds %d bytes, the open ones have %d queued", open, used, queued)
		}
		time.Sleep(time.Millisecond) // polling the server's teardown, with a bound
	}
}
