package lsptest

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Forwarded runs the built binary as the editor would reach a shared
// daemon: a real `scv daemon` on its own socket, and `scv lsp` as the
// bridge that forwards the editor's frames to it. Tests run over it
// unchanged, as gopls runs its suite forwarded.
type Forwarded struct{ Path string }

// Name implements Dialer.
func (Forwarded) Name() string { return "forwarded" }

// daemonStartBound bounds how long a started daemon may take to listen.
const daemonStartBound = 10 * time.Second

// Dial implements Dialer: one daemon per Env, one bridge per editor.
func (f Forwarded) Dial(env *Env) (Server, error) {
	env.mu.Lock()
	d := env.daemon
	env.mu.Unlock()
	if d == nil {
		var err error
		if d, err = startDaemon(f.Path, env); err != nil {
			return nil, err
		}
		env.mu.Lock()
		env.daemon = d
		env.mu.Unlock()
		env.T.Cleanup(d.stop)
	}
	args := append([]string{"lsp", "--daemon=required", "--socket", d.socket}, flagArgs(env.Flags)...)
	bridge, err := startProcess(f.Path, args, bridgeEnviron(env), env.Home)
	if err != nil {
		return nil, err
	}
	return &forwarded{process: bridge, daemon: d}, nil
}

// bridgeEnviron is the Env's environment without what forces in-process serving.
func bridgeEnviron(env *Env) []string {
	var out []string
	for _, kv := range env.Environ() {
		if !strings.HasPrefix(kv, "SCV_NO_DAEMON=") {
			out = append(out, kv)
		}
	}
	return out
}

// daemon is a running `scv daemon`.
type daemon struct {
	proc   *process
	socket string
	dir    string
}

func startDaemon(bin string, env *Env) (*daemon, error) {
	// Socket paths are limited to 108 bytes, which test directories exceed.
	dir, err := os.MkdirTemp("", "scvd")
	if err != nil {
		return nil, err
	}
	socket := filepath.Join(dir, "s.sock")
	proc, err := startProcess(bin, []string{"daemon", "--socket", socket}, bridgeEnviron(env), env.Home)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	d := &daemon{proc: proc, socket: socket, dir: dir}
	// The daemon is another process that says nothing until its socket
	// answers, so polling with a bound is the only way to know.
	deadline := time.Now().Add(daemonStartBound)
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		if c, err := net.Dial("unix", socket); err == nil {
			c.Close()
			return d, nil
		}
		select {
		case <-proc.exited:
			d.stop()
			return nil, fmt.Errorf("scv daemon exited before listening: %s", proc.Log())
		default:
		}
		if time.Now().After(deadline) {
			d.stop()
			return nil, fmt.Errorf("scv daemon did not listen on %s within %s", socket, daemonStartBound)
		}
		time.Sleep(wait)
	}
}

func (d *daemon) stop() {
	_ = d.proc.cmd.Process.Signal(syscall.SIGTERM)
	d.proc.Stop(5 * time.Second)
	os.RemoveAll(d.dir)
}

// forwarded is a bridge process whose Log also shows the daemon's.
type forwarded struct {
	*process
	daemon *daemon
}

func (f *forwarded) Log() string {
	return f.process.Log() + f.daemon.proc.Log()
}

// ServedByDaemon reports whether the Env's editors reach a shared daemon,
// where sessions outlive windows (shutdown cancels nothing) and status
// reports mode "daemon".
func (e *Env) ServedByDaemon() bool {
	_, ok := e.Dialer.(Forwarded)
	return ok
}
