package lsptest

import (
	"scv/lsp"
	"scv/lsp/schema"
	"scv/runtime/config"
)

// InProcessDaemon serves every editor of an Env with one daemon-mode
// lsp.Server in the test process, as `scv daemon` serves its windows; each
// editor's initialize carries the Env's Flags (those set when it was
// dialled) in initializationOptions.scv.flags, as a forwarding `scv lsp`
// adds them. It shows in-process what Forwarded shows over the binary: the
// flags of one window against sessions another started.
type InProcessDaemon struct{}

// Name implements Dialer.
func (InProcessDaemon) Name() string { return "inprocess-daemon" }

// Dial implements Dialer: one server per Env, one connection per editor.
func (InProcessDaemon) Dial(env *Env) (Server, error) {
	env.mu.Lock()
	srv := env.shared
	env.mu.Unlock()
	if srv == nil {
		// The server's own flags are the daemon's: none. The window's
		// go in its initialize.
		var err error
		if srv, err = newInProcessServer(env, lsp.ModeDaemon, config.Overrides{}); err != nil {
			return nil, err
		}
		env.mu.Lock()
		env.shared = srv
		env.mu.Unlock()
		env.T.Cleanup(srv.Shutdown)
	}
	p := serveInProcess(srv)
	var opts *schema.InitializationOptions
	if flags := env.Flags; !flags.IsZero() {
		opts = &schema.InitializationOptions{SCV: &schema.ClientOptions{Flags: &flags}}
	}
	return &windowOfDaemon{inProcess: p, opts: opts}, nil
}

// windowOfDaemon is one editor's connection to an InProcessDaemon.
type windowOfDaemon struct {
	*inProcess
	opts *schema.InitializationOptions
}

// initializationOptions implements bridged.
func (w *windowOfDaemon) initializationOptions() *schema.InitializationOptions { return w.opts }

// bridged is a Server that adds initializationOptions to the editor's
// initialize, as a forwarding `scv lsp` does.
type bridged interface {
	initializationOptions() *schema.InitializationOptions
}
