package mcp

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"scv/internal/sweep"
)

// serverMarkerEnv names the variable that marks every process of one stdio
// server: its descendants inherit it, so stopping the server finds them
// even after they left its process group (setsid), as a shell call's
// cleanup does.
const serverMarkerEnv = "SCV_MCP_SERVER"

// stderrDrainGrace is how long a stopped server's stderr is still read
// after its process group was killed; only a process that left the group
// can hold the pipe open longer.
const stderrDrainGrace = time.Second

// process is one stdio server's program, in its own process group and
// marked, so that stopping it stops everything it started.
type process struct {
	cmd    *exec.Cmd
	marker string   // serverMarkerEnv=<random>, in its environment
	stdin  *os.File // our end of its stdin
	stdout *os.File // our end of its stdout
	errR   *os.File // our end of its stderr
	exited chan struct{}
	// waitErr is cmd.Wait's result, set before exited closes.
	waitErr  error
	drained  chan struct{}
	stopping chan struct{}
}

// startProcess runs command with its stdin and stdout as pipes to us and
// its stderr copied into log.
func startProcess(command string, args []string, dir string, env []string, log io.Writer) (*process, error) {
	marker, err := sweep.NewMarker(serverMarkerEnv)
	if err != nil {
		return nil, err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd := exec.Command(command, args...)
	// The marker goes last: a server's own env cannot replace it.
	cmd.Dir, cmd.Env = dir, append(env, marker)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	sweep.BecomeSubreaper()
	err = cmd.Start()
	// The child holds its ends now (or never will).
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, err
	}
	p := &process{cmd: cmd, marker: marker, stdin: inW, stdout: outR, errR: errR,
		exited: make(chan struct{}), drained: make(chan struct{}), stopping: make(chan struct{})}
	go p.wait()
	go p.drain(log)
	return p, nil
}

// wait reaps the process once it exited, after killing its group and
// sweeping every process that carries its marker (within sweep.Bound), so
// a server's close is reported only when nothing it started runs.
func (p *process) wait() {
	p.waitErr = sweep.Wait(p.cmd, p.marker)
	close(p.exited)
}

func (p *process) drain(log io.Writer) {
	defer close(p.drained)
	_, _ = io.Copy(log, p.errR)
}

// stop closes the server's stdin (a polite server exits on EOF), kills its
// group after grace, and waits for the process and its stderr copier.
func (p *process) stop(grace time.Duration) {
	p.stdin.Close()
	timer := time.NewTimer(grace)
	select {
	case <-p.exited:
	case <-timer.C:
		_ = sweep.KillGroup(p.cmd.Process.Pid)
		<-p.exited
	}
	timer.Stop()
	drain := time.NewTimer(stderrDrainGrace)
	select {
	case <-p.drained:
	case <-drain.C:
		p.errR.Close() // a process outside the group holds the pipe
		<-p.drained
	}
	drain.Stop()
	p.errR.Close()
	p.stdout.Close()
}

// exitReason describes how the process ended, for a status.
func (p *process) exitReason() string {
	var exit *exec.ExitError
	switch {
	case p.waitErr == nil:
		return "exited with code 0"
	case errors.As(p.waitErr, &exit):
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return fmt.Sprintf("killed by signal %s", ws.Signal())
		}
		return fmt.Sprintf("exited with code %d", exit.ExitCode())
	default:
		return p.waitErr.Error()
	}
}

// serverEnv is the environment a stdio server starts with: base (already
// stripped of secrets) with the server's own variables replacing any of
// the same name.
func serverEnv(base []string, own map[string]string) []string {
	env := make([]string, 0, len(base)+len(own))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if _, replaced := own[name]; !replaced {
			env = append(env, kv)
		}
	}
	for name, v := range own {
		env = append(env, name+"="+v)
	}
	return env
}
