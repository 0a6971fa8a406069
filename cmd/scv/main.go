// Command scv is a coding agent that editors drive over JSON-RPC.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"sort"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

type command struct {
	run     func(args []string) int
	summary string
}

var commands = map[string]command{
	"lsp":      {runLSP, "serve the protocol on stdin/stdout (what editors start)"},
	"acp":      {runACP, "serve the Agent Client Protocol on stdin/stdout (Zed, JetBrains, CodeCompanion…)"},
	"exec":     {runExec, "run one prompt headless: the answer on stdout, tools on stderr"},
	"demo":     {runDemo, "an offline demo on an embedded script (no API key needed)"},
	"init":     {runInit, "write a commented config.toml into $SCV_HOME"},
	"version":  {runVersion, "print the version"},
	"daemon":   {runDaemon, "run the shared daemon on the user's socket"},
	"status":   {runStatus, "show the daemon: pid, uptime, connections, sessions"},
	"stop":     {runStop, "stop the daemon gracefully"},
	"attach":   {runAttach, "follow a daemon session in this terminal and answer its approvals"},
	"mcp":      {runMCP, "list the configured MCP servers; --check starts each and lists its tools"},
	"sessions": {runSessions, "list sessions; sessions rm ID deletes one, sessions export ID prints its transcript"},
	"undo":     {runUndo, "revert a turn's file changes: undo [--force] [SESSION [TURN]] (default: this directory's newest session, its last changing turn)"},
}

func main() {
	// An editor that goes away closes our stdout; report that as an error
	// from the write instead of dying by SIGPIPE.
	signal.Ignore(syscall.SIGPIPE)
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	cmd, ok := commands[os.Args[1]]
	if !ok {
		if os.Args[1] == "help" || os.Args[1] == "-h" || os.Args[1] == "--help" {
			usage()
			os.Exit(0)
		}
		fmt.Fprintf(os.Stderr, "scv: unknown command %q\n\n", os.Args[1])
		usage()
		os.Exit(2)
	}
	os.Exit(cmd.run(os.Args[2:]))
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: scv <command> [flags]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(os.Stderr, "  %-9s %s\n", name, commands[name].summary)
	}
}

func runVersion([]string) int {
	fmt.Println("scv", version)
	return 0
}
