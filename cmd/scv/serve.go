package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"scv/bridge"
	"scv/internal/outbudget"
	"scv/lsp"
	"scv/runtime/config"
	"scv/runtime/session"
	"scv/runtime/store"
)

// sessionFlags are the configuration flags shared by lsp, exec and demo;
// they override every config file.
type sessionFlags struct {
	model, provider, baseURL, approval string
	noTools                            bool
}

func (f *sessionFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.model, "model", "", "model name (provider.model)")
	fs.StringVar(&f.provider, "provider", "", "provider kind: openai or replay (provider.kind)")
	fs.StringVar(&f.baseURL, "base-url", "", "OpenAI-compatible endpoint (provider.base_url)")
	fs.StringVar(&f.approval, "approval", "", "approval policy: never, on-risk, always or auto")
	fs.BoolVar(&f.noTools, "no-tools", false, "offer the model no tools")
}

func (f *sessionFlags) overrides() config.Overrides {
	o := config.Overrides{Provider: f.provider, Model: f.model, BaseURL: f.baseURL, ApprovalPolicy: f.approval}
	if f.noTools {
		t := true
		o.NoTools = &t
	}
	return o
}

// serverOptions loads the user's config and returns it with the server
// options every mode shares (the config's wire limits among them).
func serverOptions(mode string, flags config.Overrides) (lsp.Options, config.Config, error) {
	home, err := config.Home()
	if err != nil {
		return lsp.Options{}, config.Config{}, err
	}
	cfg, _, err := config.Load(config.LoadOptions{Home: home, Flags: flags})
	if err != nil {
		return lsp.Options{}, config.Config{}, err
	}
	st, err := store.OpenWith(config.SessionsDir(home), store.Limits{MaxLogBytes: int64(cfg.Sessions.MaxLogBytes)})
	if err != nil {
		return lsp.Options{}, config.Config{}, err
	}
	return lsp.Options{
		Mode: mode, Version: version, Home: home, Flags: flags,
		Protocol: cfg.Protocol, MaxSessions: cfg.Daemon.MaxSessions,
		Response: session.ResponseLimits(cfg), Store: st,
	}, cfg, nil
}

// stdio joins stdin and stdout into the connection editors speak on.
type stdio struct {
	io.Reader
	io.Writer
}

func (stdio) Close() error { return os.Stdin.Close() }

// runLSP serves an editor on stdio: forwarded to the shared daemon when the
// daemon mode says so, in-process otherwise.
func runLSP(args []string) int {
	fs := flag.NewFlagSet("scv lsp", flag.ContinueOnError)
	var f doorFlags
	f.register(fs)
	// Language clients add --stdio when told to use stdio, which is what
	// scv lsp always speaks.
	fs.Bool("stdio", true, "accepted for language clients; stdio is the only transport")
	if fs.Parse(args) != nil {
		return 2
	}
	d, code := openDoor("scv lsp", &f)
	if code != 0 {
		return code
	}
	if d.daemon != nil {
		// The daemon applies the flags to this connection's sessions, above
		// their session/start params, as in-process serving does.
		fwd := bridge.ForwardOptions{Limits: bridge.LimitsFrom(d.cfg.Protocol), Flags: f.session.overrides(),
			Outbound: outbudget.NewProcess(d.cfg.Protocol.MaxProcessOutboundBytes)}
		if err := bridge.ForwardStdio(context.Background(), d.daemon, fwd); err != nil {
			fmt.Fprintf(os.Stderr, "scv lsp: %v\n", err)
			return 1
		}
		return 0
	}
	if err := lsp.NewServer(d.opts).ServeConn(context.Background(), stdio{os.Stdin, os.Stdout}); err != nil {
		fmt.Fprintf(os.Stderr, "scv lsp: %v\n", err)
		return 1
	}
	return 0
}

func runInit([]string) int {
	home, err := config.Home()
	if err != nil {
		fmt.Fprintf(os.Stderr, "scv init: %v\n", err)
		return 1
	}
	path, err := config.Init(home)
	if err != nil {
		fmt.Fprintf(os.Stderr, "scv init: %v\n", err)
		return 1
	}
	fmt.Printf("wrote %s\n", path)
	return 0
}
