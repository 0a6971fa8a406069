package lsp_test

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"scv/lsp/lsptest"
)

// dialers are the transports every integration test runs over: the built
// binary on stdio, the server in this process over a pipe, and the binary
// as a bridge forwarding to a real daemon.
var dialers []lsptest.Dialer

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	flag.Parse()
	if worker := flag.Lookup("test.fuzzworker"); worker != nil && worker.Value.String() == "true" {
		// A fuzzing worker runs only the fuzz target, in process: it has
		// no use for the binary the integration tests build.
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "scv-lsp-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	bin, err := lsptest.BuildBinary(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	dialers = []lsptest.Dialer{lsptest.InProcess{}, lsptest.Binary{Path: bin}, lsptest.Forwarded{Path: bin}}
	return m.Run()
}

// each runs f once per transport, in parallel subtests, each with its own Env.
func each(t *testing.T, f func(t *testing.T, env *lsptest.Env)) {
	t.Helper()
	t.Parallel()
	for _, d := range dialers {
		t.Run(d.Name(), func(t *testing.T) {
			t.Parallel()
			f(t, lsptest.NewEnv(t, d))
		})
	}
}

// connect returns an initialized editor on a fresh server of env.
func connect(t *testing.T, env *lsptest.Env) *lsptest.Editor {
	t.Helper()
	ed := env.Connect()
	ed.Initialize()
	return ed
}
