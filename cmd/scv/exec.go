package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"scv/bridge"
	"scv/internal/termsafe"
	"scv/lsp"
	"scv/lsp/headless"
	"scv/lsp/schema"
	"scv/runtime/session"
)

func runExec(args []string) int {
	fs := flag.NewFlagSet("scv exec", flag.ContinueOnError)
	var f sessionFlags
	f.register(fs)
	cwd := fs.String("cwd", ".", "workspace directory")
	resume := fs.String("resume", "", "continue this session (by id) instead of starting one")
	socketFlag := fs.String("socket", "", "with --resume: the daemon socket (default $SCV_SOCKET or $SCV_HOME/server.sock)")
	if fs.Parse(args) != nil {
		return 2
	}
	prompt := strings.Join(fs.Args(), " ")
	if strings.TrimSpace(prompt) == "" {
		fmt.Fprintln(os.Stderr, `usage: scv exec [flags] "prompt"`+"\n       scv exec --resume ID \"prompt\"")
		return 2
	}
	approver := headless.TerminalApprover(os.Stdin, os.Stderr)
	if *resume != "" {
		return runResume(fs, *resume, *socketFlag, prompt, approver)
	}
	dir, err := filepath.Abs(*cwd)
	if err != nil {
		fmt.Fprintf(os.Stderr, "scv exec: %v\n", err)
		return 1
	}
	return runHeadless(f, headless.Options{Session: schema.SessionStartParams{Cwd: dir}, Prompt: prompt, Approve: approver})
}

// runResume runs one turn in an existing session: the daemon's when a
// daemon runs, else one the in-process server loads from the store. The
// session keeps its own model, cwd and policy, so the flags that choose
// those are refused rather than silently ignored.
func runResume(fs *flag.FlagSet, id, socketFlag, prompt string, approve headless.Approver) int {
	var conflict string
	fs.Visit(func(fl *flag.Flag) {
		if fl.Name != "resume" && fl.Name != "socket" && conflict == "" {
			conflict = fl.Name
		}
	})
	if conflict != "" {
		fmt.Fprintf(os.Stderr, "scv exec: --%s cannot be combined with --resume: the session keeps its own settings\n", conflict)
		return 2
	}
	socket, err := bridge.SocketPath(socketFlag)
	if err != nil {
		fmt.Fprintf(os.Stderr, "scv exec: %v\n", err)
		return 1
	}
	opts := headless.Options{Resume: id, Prompt: prompt, Approve: approve}
	conn, err := bridge.Connect(socket)
	switch {
	case err == nil:
		opts.Conn = conn
	case !bridge.NoDaemon(err):
		fmt.Fprintf(os.Stderr, "scv exec: %v\n", err)
		return 1
	}
	return runHeadless(sessionFlags{}, opts)
}

// runHeadless runs one turn, in-process unless run.Conn reaches a daemon;
// Ctrl-C cancels the turn, a second Ctrl-C leaves at once. run's Server,
// Out, Log and Interrupt are filled in here.
func runHeadless(f sessionFlags, run headless.Options) int {
	opts, _, err := serverOptions(lsp.ModeStdio, f.overrides())
	if err != nil {
		fmt.Fprintf(os.Stderr, "scv: %v\n", err)
		return 1
	}
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt)
	defer signal.Stop(signals)
	interrupt := make(chan struct{}, 1)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		count := 0
		for {
			select {
			case <-signals:
				count++
				if count > 1 {
					os.Exit(headless.ExitCancelled)
				}
				interrupt <- struct{}{}
			case <-stop:
				return
			}
		}
	}()
	run.Server, run.Out, run.Log, run.Interrupt = opts, os.Stdout, os.Stderr, interrupt
	return headless.Run(context.Background(), run)
}

// demoNotes is the file the embedded demo script edits.
const demoNotes = "# Notes\n\nTODO: write a greeting.\n"

func runDemo(args []string) int {
	fs := flag.NewFlagSet("scv demo", flag.ContinueOnError)
	ask := fs.Bool("ask", false, "answer the approval yourself instead of approving it automatically")
	if fs.Parse(args) != nil {
		return 2
	}
	dir, err := os.MkdirTemp("", "scv-demo-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "scv demo: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)
	notes := filepath.Join(dir, "notes.md")
	if err := os.WriteFile(notes, []byte(demoNotes), 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "scv demo: %v\n", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "scv demo: offline replay provider, workspace %s\n\n", dir)
	approver := headless.FixedApprover(session.DecisionApprove, os.Stderr, "approved automatically in the demo; run with --ask to answer yourself")
	if *ask {
		approver = headless.TerminalApprover(os.Stdin, os.Stderr)
	}
	status := runHeadless(sessionFlags{provider: "replay"}, headless.Options{
		Session: schema.SessionStartParams{Cwd: dir}, Prompt: "Please add a greeting to notes.md.", Approve: approver,
	})
	if after, err := os.ReadFile(notes); err == nil {
		fmt.Fprintf(os.Stderr, "\nnotes.md now reads:\n%s", termsafe.Escape(string(after)))
	}
	return status
}
