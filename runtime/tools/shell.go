package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"scv/internal/sweep"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"
)

// shellDrainGrace is how long Run keeps reading output after the call's
// processes have been killed. Only a process that both left the group and
// cleared its environment can still hold the pipe then; it is not waited
// for beyond this.
const shellDrainGrace = 2 * time.Second

type shellTool struct {
	workspaceTool
	env ShellEnv
}

type shellArgs struct {
	Command string `json:"command"`
}

func newShell(ws *Workspace, limits Limits, env ShellEnv) *shellTool {
	return &shellTool{env: env, workspaceTool: bind(ws, limits, spec{
		name: "shell",
		desc: fmt.Sprintf("Run a command with sh -c in the workspace root and return its combined stdout and stderr and exit code. "+
			"Stdin is empty; the command is killed after %s. When the call ends (exit, timeout or cancel) every process it started is killed, "+
			"including background jobs and jobs that used setsid or nohup, unless such a job also cleared its environment (env -i). "+
			"Credentials in the environment (the provider's API key, *_KEY, *TOKEN*, *SECRET*, *PASSWORD*, URLs with passwords) are not passed.", limits.ShellTimeout),
		params: params{
			{name: "command", typ: typeString, required: true, desc: "The shell command line."},
		},
		risk: RiskExec,
	})}
}

func (t *shellTool) Summary(args json.RawMessage) string {
	var a shellArgs
	if err := t.decode(args, &a); err != nil {
		return validUTF8(err.Error())
	}
	return validUTF8("$ " + a.Command)
}

func (t *shellTool) Run(ctx context.Context, args json.RawMessage) Result {
	var a shellArgs
	if err := t.decode(args, &a); err != nil {
		return Result{Output: validUTF8(err.Error())}
	}
	if strings.TrimSpace(a.Command) == "" {
		return t.fail("argument \"command\" must not be empty")
	}
	runCtx, cancel := context.WithTimeout(ctx, t.limits.ShellTimeout)
	defer cancel()

	// The command writes straight into a pipe we own, so Wait does not
	// depend on copying goroutines that a grandchild holding the pipe
	// could keep alive; draining is ours and bounded.
	pr, pw, err := os.Pipe()
	if err != nil {
		return t.fail("create output pipe: %v", err)
	}
	defer pr.Close()
	cmd := exec.CommandContext(runCtx, "sh", "-c", a.Command)
	cmd.Dir = t.ws.Root()
	marker, err := sweep.NewMarker(callMarkerEnv)
	if err != nil {
		return t.fail("%v", err)
	}
	cmd.Env = append(t.env.Filter(os.Environ()), marker)
	cmd.Stdout, cmd.Stderr = pw, pw
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var killed atomic.Bool // set when the context ends the command
	cmd.Cancel = func() error {
		killed.Store(true)
		return sweep.KillGroup(cmd.Process.Pid)
	}
	sweep.BecomeSubreaper()
	if err := cmd.Start(); err != nil {
		pw.Close()
		return t.fail("start sh: %v", err)
	}
	pw.Close()

	out := &capBuffer{max: t.limits.MaxOutputBytes}
	var sink io.Writer = out
	live := startLiveOutput(ctx, t.limits.MaxOutputBytes)
	if live != nil {
		sink = io.MultiWriter(out, live)
	}
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		_, _ = io.Copy(sink, pr)
	}()

	// Whatever the outcome, nothing the command started outlives it. The
	// group is killed while its leader is still unreaped when possible.
	waitErr := sweep.Wait(cmd, marker)
	grace := time.NewTimer(shellDrainGrace)
	select {
	case <-drained:
	case <-grace.C:
		pr.Close() // unblocks the copy
		<-drained
	}
	grace.Stop()
	live.Close() // the last chunk goes out before the result

	var status string
	success := false
	switch {
	case killed.Load() && ctx.Err() == nil:
		status = fmt.Sprintf("[timed out after %s; process group killed]", t.limits.ShellTimeout)
	case killed.Load():
		status = "[cancelled; process group killed]"
	case waitErr == nil:
		status, success = "[exit code: 0]", true
	default:
		var exit *exec.ExitError
		if errors.As(waitErr, &exit) {
			if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				status = fmt.Sprintf("[killed by signal: %s]", ws.Signal())
			} else {
				status = fmt.Sprintf("[exit code: %d]", exit.ExitCode())
			}
		} else {
			status = fmt.Sprintf("[wait: %v]", waitErr)
		}
	}
	text := string(out.buf)
	if out.truncated {
		text = trimPartialRune(text) + fmt.Sprintf("\n[output truncated at %d bytes]", t.limits.MaxOutputBytes)
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return Result{Success: success, Output: validUTF8(text + status), Truncated: out.truncated}
}

// callMarkerEnv names the variable that marks every process of one shell
// call: descendants inherit it, so the call's cleanup can find them even
// after they left its process group.
const callMarkerEnv = "SCV_SHELL_CALL"

// trimPartialRune drops a rune cut in half by the output cap.
func trimPartialRune(s string) string {
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			if !utf8.FullRuneInString(s[i:]) {
				return s[:i]
			}
			break
		}
	}
	return s
}
