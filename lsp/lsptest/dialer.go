package lsptest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"scv/lsp"
	"scv/runtime/config"
	"scv/runtime/store"
)

// Dialer starts a server for an Env and connects one editor to it. A new
// transport (the daemon bridge) plugs into every test by implementing it.
type Dialer interface {
	// Name labels the transport in subtest names.
	Name() string
	// Dial starts a server configured by env (its config.toml is written
	// already) and returns the editor's view of it.
	Dial(env *Env) (Server, error)
}

// Server is a running server as one editor sees it.
type Server interface {
	// Conn is the editor's end of the connection: reads return what the
	// server writes, writes reach the server; Close ends both directions.
	Conn() io.ReadWriteCloser
	// CloseInput closes only the editor→server direction, as an editor
	// closing the server's stdin does.
	CloseInput() error
	// Wait waits up to timeout for the server to end and returns the exit
	// status `scv lsp` has (or would have) then.
	Wait(timeout time.Duration) (int, error)
	// Log returns what the server wrote to its error stream so far.
	Log() string
	// Stop ends the server, forcibly when it does not end by itself within
	// timeout, and releases everything. It is idempotent.
	Stop(timeout time.Duration)
}

// Binary runs the built `scv lsp` executable at Path, with the Env's
// environment, speaking on its stdin and stdout.
type Binary struct{ Path string }

// Name implements Dialer.
func (Binary) Name() string { return "binary" }

// Dial implements Dialer.
func (b Binary) Dial(env *Env) (Server, error) {
	return startProcess(b.Path, append([]string{"lsp"}, flagArgs(env.Flags)...), env.Environ(), env.Home)
}

// flagArgs spells o as the `scv lsp` flags that set it.
func flagArgs(o config.Overrides) []string {
	var args []string
	add := func(name, v string) {
		if v != "" {
			args = append(args, "--"+name+"="+v)
		}
	}
	add("model", o.Model)
	add("provider", o.Provider)
	add("base-url", o.BaseURL)
	add("approval", o.ApprovalPolicy)
	if o.NoTools != nil && *o.NoTools {
		args = append(args, "--no-tools")
	}
	return args
}

// startProcess runs bin with args on pipes the editor owns; its stderr
// goes to a file in dir.
func startProcess(bin string, args, environ []string, dir string) (*process, error) {
	// Our own pipes, not exec's StdinPipe/StdoutPipe: Wait would close
	// those under a reader that has not finished.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	logFile, err := os.CreateTemp(dir, "stderr-*.log")
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("stderr file: %w", err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = environ
	cmd.Dir = dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, logFile
	startErr := cmd.Start()
	// The child has its copies; keeping ours would hide its exit (no EOF).
	inR.Close()
	outW.Close()
	if startErr != nil {
		inW.Close()
		outR.Close()
		logFile.Close()
		return nil, fmt.Errorf("start %s %v: %w", bin, args, startErr)
	}
	p := &process{cmd: cmd, in: inW, out: outR, log: logFile, exited: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// process is a running `scv lsp`.
type process struct {
	cmd     *exec.Cmd
	in      *os.File // its stdin
	out     *os.File // its stdout
	log     *os.File // its stderr
	exited  chan struct{}
	waitErr error // set before exited is closed

	stopOnce sync.Once
}

func (p *process) Conn() io.ReadWriteCloser { return pipeConn{r: p.out, w: p.in} }

func (p *process) CloseInput() error { return p.in.Close() }

func (p *process) Wait(timeout time.Duration) (int, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-p.exited:
	case <-timer.C:
		return -1, fmt.Errorf("scv lsp (pid %d) did not exit within %s", p.cmd.Process.Pid, timeout)
	}
	var exit *exec.ExitError
	switch {
	case p.waitErr == nil:
		return 0, nil
	case errors.As(p.waitErr, &exit):
		return exit.ExitCode(), nil
	}
	return -1, p.waitErr
}

func (p *process) Log() string {
	data, err := os.ReadFile(p.log.Name())
	if err != nil {
		return fmt.Sprintf("(read stderr: %v)", err)
	}
	return string(data)
}

func (p *process) Stop(timeout time.Duration) {
	p.stopOnce.Do(func() {
		_ = p.in.Close()
		if _, err := p.Wait(timeout); err != nil {
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
		_ = p.out.Close()
		_ = p.log.Close()
	})
}

// pipeConn joins a read end and a write end into one connection.
type pipeConn struct {
	r io.ReadCloser
	w io.WriteCloser
}

func (c pipeConn) Read(b []byte) (int, error)  { return c.r.Read(b) }
func (c pipeConn) Write(b []byte) (int, error) { return c.w.Write(b) }
func (c pipeConn) Close() error {
	errW := c.w.Close()
	errR := c.r.Close()
	return errors.Join(errW, errR)
}

// InProcess serves each connection with an lsp.Server in the test process,
// configured as `scv lsp` would configure it. The two directions are
// separate in-memory pipes so the editor can close its output alone, as it
// can close a process's stdin.
type InProcess struct{}

// Name implements Dialer.
func (InProcess) Name() string { return "inprocess" }

// Dial implements Dialer.
func (InProcess) Dial(env *Env) (Server, error) {
	srv, err := newInProcessServer(env, lsp.ModeStdio, env.Flags)
	if err != nil {
		return nil, err
	}
	return serveInProcess(srv), nil
}

// newInProcessServer is an lsp.Server in mode configured from env as
// `scv lsp` (or `scv daemon`) given flags would configure it.
func newInProcessServer(env *Env, mode string, flags config.Overrides) (*lsp.Server, error) {
	cfg, _, err := config.Load(config.LoadOptions{Home: env.Home, Flags: flags})
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", config.UserFile(env.Home), err)
	}
	st, err := store.OpenWith(config.SessionsDir(env.Home), store.Limits{MaxLogBytes: int64(cfg.Sessions.MaxLogBytes)})
	if err != nil {
		return nil, err
	}
	return lsp.NewServer(lsp.Options{
		Store:       st,
		Mode:        mode,
		Version:     "test",
		Home:        env.Home,
		Flags:       flags,
		Protocol:    cfg.Protocol,
		MaxSessions: cfg.Daemon.MaxSessions,
		Getenv:      env.Getenv,
	}), nil
}

// serveInProcess serves one editor's connection with srv.
func serveInProcess(srv *lsp.Server) *inProcess {
	toServerR, toServerW := io.Pipe()
	toEditorR, toEditorW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	p := &inProcess{
		editor: pipeConn{r: toEditorR, w: toServerW},
		input:  toServerW,
		cancel: cancel,
		exited: make(chan struct{}),
	}
	go func() {
		defer close(p.exited)
		p.serveErr = srv.ServeConn(ctx, pipeConn{r: toServerR, w: toEditorW})
		// What a process exit does to its stdout: the editor sees EOF.
		_ = toEditorW.Close()
		_ = toServerR.Close()
	}()
	return p
}

type inProcess struct {
	editor   pipeConn
	input    *io.PipeWriter
	cancel   context.CancelFunc
	exited   chan struct{}
	serveErr error // set before exited is closed

	stopOnce sync.Once
}

func (p *inProcess) Conn() io.ReadWriteCloser { return p.editor }

func (p *inProcess) CloseInput() error { return p.input.Close() }

// Wait maps ServeConn's result to an exit status the way cmd/scv does.
func (p *inProcess) Wait(timeout time.Duration) (int, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-p.exited:
	case <-timer.C:
		return -1, fmt.Errorf("in-process server did not end within %s", timeout)
	}
	if p.serveErr != nil {
		return 1, nil
	}
	return 0, nil
}

func (p *inProcess) Log() string {
	select {
	case <-p.exited:
		if p.serveErr != nil {
			return "scv lsp: " + p.serveErr.Error() + "\n"
		}
	default:
	}
	return ""
}

func (p *inProcess) Stop(timeout time.Duration) {
	p.stopOnce.Do(func() {
		_ = p.input.Close()
		if _, err := p.Wait(timeout); err != nil {
			p.cancel()
			<-p.exited
		}
		p.cancel()
		_ = p.editor.Close()
	})
}

// BuildBinary builds cmd/scv into dir (with the race detector when the
// tests run with it, so the server's races fail the tests too) and returns
// the executable's path. Call it once per test package, from TestMain.
func BuildBinary(dir string) (string, error) {
	path := filepath.Join(dir, "scv")
	args := []string{"build", "-o", path}
	if raceEnabled {
		args = append(args, "-race")
	}
	args = append(args, "scv/cmd/scv")
	cmd := exec.Command("go", args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go %v: %w\n%s", args, err, out)
	}
	return path, nil
}
