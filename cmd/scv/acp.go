package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"

	"scv/acp"
	"scv/internal/outbudget"
	"scv/lsp"
)

// runACP serves an Agent Client Protocol client on stdio: onto the shared
// daemon's sessions when the daemon mode says so, in-process otherwise.
// Logs go to stderr only; stdout carries the protocol.
func runACP(args []string) int {
	fs := flag.NewFlagSet("scv acp", flag.ContinueOnError)
	var f doorFlags
	f.register(fs)
	if fs.Parse(args) != nil {
		return 2
	}
	d, code := openDoor("scv acp", &f)
	if code != 0 {
		return code
	}
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "scv acp: %v\n", err)
		return 1
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	var backend acp.Backend
	if d.daemon != nil {
		remote, err := acp.DialRemote(context.Background(), d.daemon, f.session.overrides(), version)
		if err != nil {
			return fail(err)
		}
		backend = remote
	} else {
		// The Manager an in-process scv lsp would use, with the same limits.
		backend = acp.NewLocal(lsp.NewServer(d.opts).Sessions(), true)
	}
	front := acp.New(acp.Options{Backend: backend, Version: version, MaxLineBytes: d.cfg.Protocol.MaxClientFrameBytes,
		MaxQueuedBytes: d.cfg.Protocol.OutboundQueueBytes,
		Outbound:       outbudget.NewProcess(d.cfg.Protocol.MaxProcessOutboundBytes), Log: log})
	if remote, ok := backend.(*acp.Remote); ok {
		remote.Bind(front.Deliver)
	}
	if err := front.Serve(context.Background(), os.Stdin, os.Stdout); err != nil {
		return fail(err)
	}
	return 0
}
