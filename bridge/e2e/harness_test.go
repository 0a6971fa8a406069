package e2e

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"scv/bridge"
	"scv/internal/fakeopenai"
	"scv/runtime/config"
)

const (
	// waitTimeout bounds every wait for a notification, a reply or a
	// process: generous for -race on a loaded machine; a passing test never
	// reaches it.
	waitTimeout = 30 * time.Second
	// socketPoll is the pause between connects while a daemon comes up: the
	// only way to see another process start listening.
	socketPoll = 10 * time.Millisecond
	// testModel and testAPIKey configure the fake OpenAI provider.
	testModel  = "test-model"
	testAPIKey = "test-key"
)

// env is one test's world: a short SCV_HOME (socket paths are limited to
// 107 bytes, so not t.TempDir), its config.toml, a workspace and the fake
// OpenAI endpoint.
type env struct {
	t      testing.TB
	home   string
	work   string
	socket string
	openai *fakeopenai.Server

	mu     sync.Mutex
	config map[string]map[string]any
}

func newEnv(t testing.TB) *env {
	t.Helper()
	home, err := os.MkdirTemp("", "scv")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	work, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := &env{
		t:      t,
		home:   home,
		work:   work,
		socket: filepath.Join(home, bridge.SocketName),
		openai: fakeopenai.New(t),
		config: map[string]map[string]any{},
	}
	e.set("provider", "kind", config.KindOpenAI)
	e.set("provider", "base_url", e.openai.URL())
	e.set("provider", "api_key", testAPIKey)
	e.set("provider", "model", testModel)
	e.set("provider", "max_retries", 0)
	e.writeConfig()
	return e
}

// set sets a key of config.toml; writeConfig makes it visible to the
// processes (and sessions) started afterwards.
func (e *env) set(table, key string, value any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.config[table] == nil {
		e.config[table] = map[string]any{}
	}
	e.config[table][key] = value
}

func (e *env) writeConfig() {
	e.t.Helper()
	e.mu.Lock()
	var buf bytes.Buffer
	err := toml.NewEncoder(&buf).Encode(e.config)
	e.mu.Unlock()
	if err != nil {
		e.t.Fatalf("encode config.toml: %v", err)
	}
	if err := os.WriteFile(config.UserFile(e.home), buf.Bytes(), 0o600); err != nil {
		e.t.Fatalf("write config.toml: %v", err)
	}
}

// useReplay makes sessions started with provider "replay" play lines (the
// replay script's JSON lines).
func (e *env) useReplay(lines ...string) {
	e.t.Helper()
	path := filepath.Join(e.home, "replay.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		e.t.Fatal(err)
	}
	e.set("provider", "replay_script", path)
	e.writeConfig()
}

// environ is the whole environment of the processes: nothing of the
// machine's own (no API key, no SCV_SOCKET) leaks in.
func (e *env) environ() []string {
	return []string{
		config.HomeEnv + "=" + e.home,
		"HOME=" + e.home,
		"PATH=" + os.Getenv("PATH"),
		"TMPDIR=" + os.TempDir(),
	}
}

// syncBuffer collects a process's output while it runs.
type syncBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{} // closed and replaced on every write
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.changed != nil {
		close(b.changed)
		b.changed = nil
	}
	return b.buf.Write(p)
}

// await waits until the output contains want.
func (b *syncBuffer) await(t testing.TB, who, want string) {
	t.Helper()
	deadline := time.NewTimer(waitTimeout)
	defer deadline.Stop()
	for {
		b.mu.Lock()
		if strings.Contains(b.buf.String(), want) {
			b.mu.Unlock()
			return
		}
		if b.changed == nil {
			b.changed = make(chan struct{})
		}
		changed := b.changed
		b.mu.Unlock()
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("%s did not write %q within %v:\n%s", who, want, waitTimeout, b.String())
		}
	}
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// proc is a process of the binary under test; its waiter goroutine ends
// when the process does.
type proc struct {
	name   string
	cmd    *exec.Cmd
	output *syncBuffer
	done   chan struct{}
	err    error // valid after done
}

// start runs `scv args...` with env's environment. The process is killed,
// if still running, when the test ends; a data race it reports fails the
// test.
func (e *env) start(stdin, stdout *os.File, args ...string) *proc {
	e.t.Helper()
	p := &proc{name: "scv " + strings.Join(args, " "), output: &syncBuffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(scvBin, args...)
	p.cmd.Env = e.environ()
	p.cmd.Dir = e.work
	p.cmd.Stderr = p.output
	if stdin != nil {
		p.cmd.Stdin = stdin
	}
	if stdout != nil {
		p.cmd.Stdout = stdout
	} else {
		p.cmd.Stdout = p.output
	}
	if err := p.cmd.Start(); err != nil {
		e.t.Fatalf("start %s: %v", p.name, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	e.t.Cleanup(func() {
		p.stop()
		if out := p.output.String(); strings.Contains(out, "WARNING: DATA RACE") {
			e.t.Errorf("%s reported a data race:\n%s", p.name, out)
		}
	})
	return p
}

// awaitOutput waits until the process has written want (its output
// reaches us through a pipe, some time after it wrote it).
func (p *proc) awaitOutput(t testing.TB, want string) {
	t.Helper()
	p.output.await(t, p.name, want)
}

// exited reports whether the process has ended.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// wait waits for the process to end and returns its exit status (-1 when
// a signal ended it).
func (p *proc) wait(t testing.TB) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(waitTimeout):
		t.Fatalf("%s did not exit within %v; output:\n%s", p.name, waitTimeout, p.output.String())
	}
	return p.code()
}

func (p *proc) code() int {
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode()
	}
	if p.err != nil {
		return -1
	}
	return 0
}

func (p *proc) signal(t testing.TB, sig syscall.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal %s: %v", p.name, err)
	}
}

// stop ends the process: SIGTERM, then SIGKILL when it does not finish in
// time. It is idempotent.
func (p *proc) stop() {
	if p.exited() {
		return
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return
	case <-time.After(waitTimeout):
	}
	p.cmd.Process.Kill()
	<-p.done
}

// daemon starts `scv daemon args...` and waits until its socket answers.
func (e *env) daemon(args ...string) *proc {
	e.t.Helper()
	p := e.start(nil, nil, append([]string{"daemon"}, args...)...)
	e.waitSocket(e.socket, p)
	return p
}

// waitSocket polls the socket until a daemon answers on it; p, when not
// nil, is the daemon that should, and its exit fails the wait.
func (e *env) waitSocket(socket string, p *proc) {
	e.t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		c, err := bridge.Connect(socket)
		if err == nil {
			c.Close()
			return
		}
		if p != nil && p.exited() {
			e.t.Fatalf("%s exited with %d before listening:\n%s", p.name, p.code(), p.output.String())
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("no daemon answered on %s within %v: %v", socket, waitTimeout, err)
		}
		time.Sleep(socketPoll)
	}
}

// cli runs a short command (status, stop) to its end and returns its
// output and exit status.
func (e *env) cli(args ...string) (stdout, stderr string, code int) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, scvBin, args...)
	cmd.Env = e.environ()
	cmd.Dir = e.work
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		e.t.Fatalf("scv %v: %v", args, err)
	}
	return out.String(), errOut.String(), code
}

// exists reports whether path exists (without following a symlink).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// hold returns a channel for fakeopenai.Reply.Hold and the idempotent
// function that releases it (also run when the test ends).
func (e *env) hold() (chan struct{}, func()) {
	ch := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(ch) }) }
	e.t.Cleanup(release)
	return ch, release
}
