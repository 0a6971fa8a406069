package acp_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"scv/lsp/lsptest"
)

var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "scv-acp-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin, err = lsptest.BuildBinary(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// msg is one message the agent sent.
type msg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    struct {
			Code string `json:"code"`
		} `json:"data"`
	} `json:"error"`
	raw string
}

// agent is a running `scv acp` driven with raw NDJSON lines; it records
// every message and waits on conditions, never on time.
type agent struct {
	t    *testing.T
	cmd  *exec.Cmd
	in   io.WriteCloser
	log  *strings.Builder
	mu   sync.Mutex
	cond *sync.Cond
	msgs []msg
	eof  bool
}

func startAgent(t *testing.T, env *lsptest.Env, args ...string) *agent {
	t.Helper()
	return startAgentEnv(t, env, env.Environ(), args...)
}

func startAgentEnv(t *testing.T, env *lsptest.Env, environ []string, args ...string) *agent {
	t.Helper()
	env.WriteConfig()
	cmd := exec.Command(bin, append([]string{"acp"}, args...)...)
	cmd.Env = environ
	cmd.Dir = env.Home
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	a := &agent{t: t, cmd: cmd, in: in, log: &strings.Builder{}}
	cmd.Stderr = &lockedWriter{b: a.log, mu: &a.mu}
	a.cond = sync.NewCond(&a.mu)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var m msg
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m.Method = "!undecodable"
			}
			m.raw = sc.Text()
			a.mu.Lock()
			a.msgs = append(a.msgs, m)
			a.cond.Broadcast()
			a.mu.Unlock()
		}
		a.mu.Lock()
		a.eof = true
		a.cond.Broadcast()
		a.mu.Unlock()
	}()
	t.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(lsptest.DefaultTimeout):
			cmd.Process.Kill()
			<-done
		}
		<-readDone
		if t.Failed() {
			t.Logf("scv acp stderr:\n%s", a.log.String())
		}
	})
	return a
}

type lockedWriter struct {
	b  *strings.Builder
	mu *sync.Mutex
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (a *agent) send(line string) {
	a.t.Helper()
	if _, err := io.WriteString(a.in, line+"\n"); err != nil {
		a.t.Fatalf("write: %v", err)
	}
}

func (a *agent) request(id int, method string, params any) {
	a.t.Helper()
	raw, _ := json.Marshal(params)
	a.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, raw))
}

// waitFor returns the first message from index from that matches, and its index.
func (a *agent) waitFor(what string, from int, match func(m msg) bool) (msg, int) {
	a.t.Helper()
	deadline := time.Now().Add(lsptest.DefaultTimeout)
	timer := time.AfterFunc(lsptest.DefaultTimeout, func() {
		a.mu.Lock()
		a.cond.Broadcast()
		a.mu.Unlock()
	})
	defer timer.Stop()
	a.mu.Lock()
	defer a.mu.Unlock()
	for {
		for i := from; i < len(a.msgs); i++ {
			if match(a.msgs[i]) {
				return a.msgs[i], i
			}
		}
		if a.eof || time.Now().After(deadline) {
			var seen []string
			for _, m := range a.msgs {
				seen = append(seen, m.raw)
			}
			// Fatalf exits through the deferred Unlock.
			a.t.Fatalf("did not receive %s; got:\n%s", what, strings.Join(seen, "\n"))
		}
		a.cond.Wait()
	}
}

func (a *agent) response(id int) msg {
	a.t.Helper()
	m, _ := a.waitFor(fmt.Sprintf("the response to %d", id), 0, func(m msg) bool {
		return m.Method == "" && string(m.ID) == fmt.Sprint(id)
	})
	return m
}

func (a *agent) result(id int, into any) {
	a.t.Helper()
	m := a.response(id)
	if m.Error != nil {
		a.t.Fatalf("request %d failed: %s", id, m.raw)
	}
	if into != nil {
		if err := json.Unmarshal(m.Result, into); err != nil {
			a.t.Fatalf("decode result %d: %v", id, err)
		}
	}
}

func (a *agent) errorCode(id int) (int, string) {
	a.t.Helper()
	m := a.response(id)
	if m.Error == nil {
		a.t.Fatalf("request %d succeeded, want an error: %s", id, m.raw)
	}
	return m.Error.Code, m.Error.Data.Code
}

// update waits for a session/update whose update has the given kind and
// whose raw text contains every needle.
func (a *agent) update(from int, kind string, needles ...string) (msg, int) {
	a.t.Helper()
	return a.waitFor(fmt.Sprintf("a %s update with %q", kind, needles), from, func(m msg) bool {
		if m.Method != "session/update" || !strings.Contains(m.raw, `"sessionUpdate":"`+kind+`"`) {
			return false
		}
		for _, n := range needles {
			if !strings.Contains(m.raw, n) {
				return false
			}
		}
		return true
	})
}

func (a *agent) initialize() {
	a.t.Helper()
	a.request(0, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	a.result(0, nil)
}

func (a *agent) newSession(id int, cwd string) string {
	a.t.Helper()
	a.request(id, "session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}})
	var r struct {
		SessionID string `json:"sessionId"`
	}
	a.result(id, &r)
	return r.SessionID
}

func prompt(sid, text string) map[string]any {
	return map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": text}}}
}
