package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"scv/internal/termsafe"
	"scv/lsp"
	"scv/lsp/headless"
	"scv/lsp/schema"
	"scv/runtime/session"
)

func runExec(args []string) int {
	fs := flag.NewFlagSet("scv exec", flag.ContinueOnError)
	var f doorFlags
	f.register(fs)
	cwd := fs.String("cwd", ".", "workspace directory")
	resume := fs.String("resume", "", "continue this session (by id) instead of starting one")
	if fs.Parse(args) != nil {
		return 2
	}
	prompt := strings.Join(fs.Args(), " ")
	if strings.TrimSpace(prompt) == "" {
		fmt.Fprintln(os.Stderr, `usage: scv exec [flags] "prompt"`+"\n       scv exec --resume ID \"prompt\"")
		return 2
	}
	run := headless.Options{Prompt: prompt, Approve: headless.TerminalApprover(os.Stdin, os.Stderr)}
	if *resume != "" {
		if conflict := sessionFlagSet(fs); conflict != "" {
			fmt.Fprintf(os.Stderr, "scv exec: --%s cannot be combined with --resume: the session keeps its own settings\n", conflict)
			return 2
		}
		run.Resume = *resume
	} else {
		dir, err := filepath.Abs(*cwd)
		if err != nil {
			fmt.Fprintf(os.Stderr, "scv exec: %v\n", err)
			return 1
		}
		run.Session = schema.SessionStartParams{Cwd: dir}
	}
	daemon, code := dialDoorDaemon("scv exec", &f)
	if code != 0 {
		return code
	}
	if daemon != nil {
		// The daemon serves with its own configuration (its endpoint and
		// key, which this machine may not have: a socket forwarded by ssh);
		// this command's flags bind the session as they do for scv lsp.
		run.Conn = daemon
		flags := f.session.overrides()
		run.Flags = &flags
	}
	return runHeadless(f.session, run)
}

// sessionFlagSet names the first flag given that would change a stored
// session's settings, or "" when none was. --approval and --no-tools are
// not among them: they only tighten a session loaded under them (its
// ceiling takes the loading process's flags).
func sessionFlagSet(fs *flag.FlagSet) string {
	conflict := ""
	fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "model", "provider", "base-url":
			if conflict == "" {
				conflict = fl.Name
			}
		}
	})
	return conflict
}

// runHeadless runs one turn, in-process unless run.Conn reaches a daemon
// (then no local configuration is read: the daemon's applies); Ctrl-C
// cancels the turn, a second Ctrl-C leaves at once. run's Server, Out,
// Log and Interrupt are filled in here.
func runHeadless(f sessionFlags, run headless.Options) int {
	if run.Conn == nil {
		opts, _, err := serverOptions(lsp.ModeStdio, f.overrides())
		if err != nil {
			fmt.Fprintf(os.Stderr, "scv: %v\n", err)
			return 1
		}
		run.Server = opts
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
	run.Out, run.Log, run.Interrupt = os.Stdout, os.Stderr, interrupt
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
