package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"

	"scv/acp"
	"scv/bridge"
	"scv/lsp"
)

// runACP serves an Agent Client Protocol client on stdio: onto the shared
// daemon's sessions when the daemon mode says so, in-process otherwise.
// Logs go to stderr only; stdout carries the protocol.
func runACP(args []string) int {
	fs := flag.NewFlagSet("scv acp", flag.ContinueOnError)
	var f sessionFlags
	f.register(fs)
	daemonMode := fs.String("daemon", "auto", "auto: use a running daemon; never: serve in-process; required: start the daemon if needed")
	noDaemon := fs.Bool("no-daemon", false, "same as --daemon=never")
	socketFlag := fs.String("socket", "", "daemon socket (default $SCV_SOCKET or $SCV_HOME/server.sock)")
	if fs.Parse(args) != nil {
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "scv acp: %v\n", err)
		return 1
	}
	mode, err := bridge.ResolveMode(*daemonMode, *noDaemon)
	if err != nil {
		fmt.Fprintf(os.Stderr, "scv acp: %v\n", err)
		return 2
	}
	socket, err := bridge.SocketPath(*socketFlag)
	if err != nil {
		return fail(err)
	}
	opts, cfg, err := serverOptions(lsp.ModeStdio, f.overrides())
	if err != nil {
		return fail(err)
	}
	daemon, err := bridge.Dial(mode, socket, func() error {
		logPath, err := bridge.LogPath()
		if err != nil {
			return err
		}
		return bridge.StartDaemon(socket, logPath)
	})
	if err != nil {
		return fail(err)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	var backend acp.Backend
	if daemon != nil {
		remote, err := acp.DialRemote(context.Background(), daemon, f.overrides(), version)
		if err != nil {
			return fail(err)
		}
		backend = remote
	} else {
		// The Manager an in-process scv lsp would use, with the same limits.
		backend = acp.NewLocal(lsp.NewServer(opts).Sessions(), true)
	}
	door := acp.New(acp.Options{Backend: backend, Version: version, MaxLineBytes: cfg.Protocol.MaxClientFrameBytes,
		MaxQueuedBytes: cfg.Protocol.OutboundQueueBytes, Log: log})
	if remote, ok := backend.(*acp.Remote); ok {
		remote.Bind(door.Deliver)
	}
	if err := door.Serve(context.Background(), os.Stdin, os.Stdout); err != nil {
		return fail(err)
	}
	return 0
}
