package acp_test

import (
	"strings"
	"testing"

	"scv/lsp/lsptest"
	"scv/lsp/schema"
)

// backends are the two ways scv acp serves sessions: in its own process
// (--daemon=never) and as a client of a real daemon.
var backends = []string{"inprocess", "daemon"}

// eachBackend runs f once per backend, in parallel subtests.
func eachBackend(t *testing.T, f func(t *testing.T, backend string)) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			f(t, b)
		})
	}
}

// newEnvFor returns an Env whose editors reach the backend's sessions.
func newEnvFor(t *testing.T, backend string) *lsptest.Env {
	if backend == "daemon" {
		return lsptest.NewEnv(t, lsptest.Forwarded{Path: bin})
	}
	return lsptest.NewEnv(t, lsptest.Binary{Path: bin})
}

// startAgentFor starts scv acp on the backend, with flags: through the
// daemon, it connects to the one an scv/* editor of env reaches (returned,
// nil in process).
func startAgentFor(t *testing.T, env *lsptest.Env, backend string, flags ...string) (*agent, *lsptest.Editor) {
	t.Helper()
	if backend != "daemon" {
		return startAgent(t, env, append([]string{"--daemon=never"}, flags...)...), nil
	}
	ed := env.Connect()
	ed.Initialize()
	var status schema.DaemonStatus
	ed.MustCall(schema.MethodDaemonStatus, struct{}{}, &status)
	var environ []string
	for _, kv := range env.Environ() {
		if !strings.HasPrefix(kv, "SCV_NO_DAEMON=") {
			environ = append(environ, kv)
		}
	}
	return startAgentEnv(t, env, environ, append([]string{"--daemon=required", "--socket", status.Socket}, flags...)...), ed
}
