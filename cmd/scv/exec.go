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
	var f sessionFlags
	f.register(fs)
	cwd := fs.String("cwd", ".", "workspace directory")
	if fs.Parse(args) != nil {
		return 2
	}
	prompt := strings.Join(fs.Args(), " ")
	if strings.TrimSpace(prompt) == "" {
		fmt.Fprintln(os.Stderr, `usage: scv exec [flags] "prompt"`)
		return 2
	}
	dir, err := filepath.Abs(*cwd)
	if err != nil {
		fmt.Fprintf(os.Stderr, "scv exec: %v\n", err)
		return 1
	}
	approver := headless.TerminalApprover(os.Stdin, os.Stderr)
	return runHeadless(f, dir, prompt, approver)
}

// runHeadless runs one turn in-process; Ctrl-C cancels the turn, a second
// Ctrl-C leaves at once.
func runHeadless(f sessionFlags, cwd, prompt string, approve headless.Approver) int {
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
	return headless.Run(context.Background(), headless.Options{
		Server:    opts,
		Session:   schema.SessionStartParams{Cwd: cwd},
		Prompt:    prompt,
		Out:       os.Stdout,
		Log:       os.Stderr,
		Approve:   approve,
		Interrupt: interrupt,
	})
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
	status := runHeadless(sessionFlags{provider: "replay"}, dir, "Please add a greeting to notes.md.", approver)
	if after, err := os.ReadFile(notes); err == nil {
		fmt.Fprintf(os.Stderr, "\nnotes.md now reads:\n%s", termsafe.Escape(string(after)))
	}
	return status
}
