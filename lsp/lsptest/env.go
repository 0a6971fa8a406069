// Package lsptest is a fake editor for integration tests of the scv
// protocol server, in the style of gopls' regression tests: an Editor
// drives a real server over a real byte stream, records every notification
// it receives, and tests assert by waiting, with a bound, for expected
// notifications to arrive — never by sleeping.
//
// How the editor reaches a server is a Dialer: the built `scv lsp` binary
// over its stdin and stdout (Binary), an lsp.Server in this process over a
// pipe (InProcess), or any other transport (the daemon bridge) that
// implements the interface. The same test runs over each of them.
package lsptest

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"scv/internal/fakeopenai"
	"scv/lsp"
	"scv/runtime/config"
)

// DefaultTimeout bounds every wait of the harness: a reply, a notification,
// a process exit. It is generous because -race and a loaded machine slow
// everything down; a passing test never waits for it.
const DefaultTimeout = 30 * time.Second

// TestAPIKey is the API key the fake provider is configured with.
const TestAPIKey = "test-key"

// TestModel is the model name sessions use by default.
const TestModel = "test-model"

// Env is one test's world: an SCV_HOME with its config.toml, a workspace
// directory, a fake OpenAI-compatible endpoint, and the transport editors
// connect with.
type Env struct {
	T       testing.TB
	Home    string             // $SCV_HOME
	Work    string             // a workspace directory (symlinks resolved)
	OpenAI  *fakeopenai.Server // the provider every session talks to
	Dialer  Dialer
	Timeout time.Duration // bound of the editors' waits; DefaultTimeout
	// Flags are the command-line flags `scv lsp` is started with (the
	// forwarding bridge's, when Forwarded), for servers dialled after they
	// are set.
	Flags config.Overrides

	mu      sync.Mutex
	config  map[string]map[string]any // TOML tables of config.toml
	environ map[string]string
	daemon  *daemon     // the Forwarded dialer's daemon, shared by the Env's editors
	shared  *lsp.Server // the InProcessDaemon dialer's server, shared by the Env's editors
}

// NewEnv returns an environment whose config.toml points the openai
// provider at a fresh fake endpoint with TestAPIKey. Everything is
// released when the test ends.
func NewEnv(t testing.TB, d Dialer) *Env {
	t.Helper()
	work, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatalf("resolve workspace: %v", err)
	}
	e := &Env{
		T:       t,
		Home:    t.TempDir(),
		Work:    work,
		OpenAI:  fakeopenai.New(t),
		Dialer:  d,
		Timeout: DefaultTimeout,
		config:  map[string]map[string]any{},
	}
	e.environ = map[string]string{
		config.HomeEnv:  e.Home,
		"HOME":          e.Home,
		"PATH":          os.Getenv("PATH"),
		"TMPDIR":        os.TempDir(),
		"SCV_NO_DAEMON": "1",
		"SCV_SOCKET":    filepath.Join(e.Home, "server.sock"),
		// A race-enabled binary otherwise sleeps a second at exit.
		"GORACE": "atexit_sleep_ms=0",
	}
	e.Set("provider", "kind", config.KindOpenAI)
	e.Set("provider", "base_url", e.OpenAI.URL())
	e.Set("provider", "api_key", TestAPIKey)
	e.Set("provider", "model", TestModel)
	return e
}

// Set sets key in table of config.toml; it takes effect for servers
// dialled, and sessions started, after it.
func (e *Env) Set(table, key string, value any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.config[table] == nil {
		e.config[table] = map[string]any{}
	}
	e.config[table][key] = value
}

// Unset removes key from table of config.toml.
func (e *Env) Unset(table, key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.config[table], key)
}

// Setenv sets a variable of the server's environment ("" removes it).
func (e *Env) Setenv(key, value string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if value == "" {
		delete(e.environ, key)
		return
	}
	e.environ[key] = value
}

// Getenv looks a variable up in the server's environment.
func (e *Env) Getenv(key string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.environ[key]
}

// Environ is the server's whole environment, sorted: only what Env holds,
// so no API key of the machine running the tests leaks in.
func (e *Env) Environ() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]string, 0, len(e.environ))
	for k, v := range e.environ {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// WriteConfig writes $SCV_HOME/config.toml from the tables set so far.
func (e *Env) WriteConfig() {
	e.T.Helper()
	e.mu.Lock()
	var buf bytes.Buffer
	err := toml.NewEncoder(&buf).Encode(e.config)
	e.mu.Unlock()
	if err != nil {
		e.T.Fatalf("encode config.toml: %v", err)
	}
	if err := os.WriteFile(config.UserFile(e.Home), buf.Bytes(), 0o600); err != nil {
		e.T.Fatalf("write config.toml: %v", err)
	}
}

// WriteFile writes a file under the workspace, creating its directories.
func (e *Env) WriteFile(rel, content string) string {
	e.T.Helper()
	path := filepath.Join(e.Work, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		e.T.Fatalf("create %s: %v", filepath.Dir(path), err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		e.T.Fatalf("write %s: %v", path, err)
	}
	return path
}

// ReadFile reads a file under the workspace ("" when it does not exist).
func (e *Env) ReadFile(rel string) string {
	e.T.Helper()
	data, err := os.ReadFile(filepath.Join(e.Work, rel))
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		e.T.Fatalf("read %s: %v", rel, err)
	}
	return string(data)
}

// Hold returns a channel for fakeopenai.Reply.Hold and the function that
// releases it. The release is idempotent and also runs when the test ends.
func (e *Env) Hold() (chan struct{}, func()) {
	ch := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(ch) }) }
	e.T.Cleanup(release)
	return ch, release
}

// Connect writes config.toml, dials a server and returns an editor on it.
// The editor is closed, and its invariants checked, when the test ends.
func (e *Env) Connect() *Editor {
	e.T.Helper()
	e.WriteConfig()
	srv, err := e.Dialer.Dial(e)
	if err != nil {
		e.T.Fatalf("dial %s: %v", e.Dialer.Name(), err)
	}
	ed := newEditor(e, srv)
	e.T.Cleanup(ed.Close)
	return ed
}
