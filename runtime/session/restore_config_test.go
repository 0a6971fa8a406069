package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"scv/runtime/ceiling"
	"scv/runtime/config"
	"scv/runtime/store"
)

func TestStoredValuesBeatTheServersFlagsOnALoad(t *testing.T) {
	h := store.Header{Provider: config.KindOpenAI, Model: "created-model", ApprovalPolicy: "on-risk"}
	flags := config.Overrides{Model: "flag-model", ApprovalPolicy: "auto", BaseURL: "http://flag"}

	own, rest := storedOverrides(h, &SessionConfigured{Model: "configured-model", ApprovalPolicy: "always"}, flags, ceiling.Ceiling{})
	if want := (config.Overrides{Provider: config.KindOpenAI, Model: "configured-model", ApprovalPolicy: "always"}); own != want {
		t.Errorf("configured: own = %+v; want %+v", own, want)
	}
	if want := (config.Overrides{BaseURL: "http://flag"}); rest != want {
		t.Errorf("the flags left = %+v, want only what the session did not store: %+v", rest, want)
	}
	if own, _ := storedOverrides(h, nil, flags, ceiling.Ceiling{}); own.Model != "created-model" || own.ApprovalPolicy != "on-risk" {
		t.Errorf("never configured: own = %+v, want the header's values", own)
	}
	// A file from before the header named a model: the flag fills the gap.
	if _, rest := storedOverrides(store.Header{}, nil, flags, ceiling.Ceiling{}); rest != flags {
		t.Errorf("nothing stored: the flags left = %+v, want all of them", rest)
	}
}

// The project rule holds on a load: a stored policy looser than the one
// the project file now sets is held to the project's, whatever the flags.
func TestAStoredPolicyLooserThanTheProjectsIsHeldOnALoad(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	project := writeProjectPolicy(t, cwd, "always")
	m := NewManager(Options{Home: home, Flags: config.Overrides{ApprovalPolicy: "auto"}})
	h := store.Header{ID: "s", Model: "m", ApprovalPolicy: "on-risk"}
	r, err := m.restoredConfig(cwd, h, &SessionConfigured{Model: "m", ApprovalPolicy: "auto"}, config.Overrides{})
	if err != nil || r.cfg.Agent.ApprovalPolicy != "always" || !r.tightened {
		t.Errorf("policy = %q, tightened %v, %v; want the project's always, tightened", r.cfg.Agent.ApprovalPolicy, r.tightened, err)
	}
	if err := r.ceil.Check("auto"); err == nil || !strings.Contains(err.Error(), project) {
		t.Errorf("the loaded session's ceiling refuses auto with %v, want an error naming %s", err, project)
	}
	h.ApprovalPolicy = "always"
	if r, err := m.restoredConfig(cwd, h, nil, config.Overrides{}); err != nil || r.cfg.Agent.ApprovalPolicy != "always" {
		t.Errorf("a stored policy as strict as the project's: %q, %v", r.cfg.Agent.ApprovalPolicy, err)
	}
}

// The ceiling stored when a session started holds on its load, whatever
// the loading process's flags; tightened by a project file that now asks
// for what no policy meets beside it, the load is refused naming both.
func TestAStoredCeilingHoldsOnALoad(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	m := NewManager(Options{Home: home, Flags: config.Overrides{ApprovalPolicy: "auto"}})
	started, err := ceiling.New(ceiling.FlagBound("always", "scv lsp"))
	if err != nil {
		t.Fatal(err)
	}
	started = started.WithToolsOff("--no-tools of scv lsp")
	h := store.Header{ID: "s", Model: "m", ApprovalPolicy: "always", Ceiling: started.Encode()}
	r, err := m.restoredConfig(cwd, h, &SessionConfigured{Model: "m", ApprovalPolicy: "auto"}, config.Overrides{})
	if err != nil || r.cfg.Agent.ApprovalPolicy != "always" || r.cfg.Tools.Enabled || r.tightened {
		t.Errorf("loaded with policy %q, tools %v, tightened %v (%v); want always without tools, as stored", r.cfg.Agent.ApprovalPolicy, r.cfg.Tools.Enabled, r.tightened, err)
	}
	if err := r.ceil.Check("auto"); err == nil {
		t.Error("the loaded session may be configured to auto")
	}
	project := writeProjectPolicy(t, cwd, "never")
	_, err = m.restoredConfig(cwd, h, nil, config.Overrides{})
	if err == nil || !strings.Contains(err.Error(), project) || !strings.Contains(err.Error(), "--approval=always") {
		t.Errorf("a load under a stored always and a project's never: %v", err)
	}
}

func writeProjectPolicy(t *testing.T, cwd, policy string) string {
	t.Helper()
	project := config.ProjectFile(cwd)
	if err := os.MkdirAll(filepath.Dir(project), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(project, []byte("[agent]\napproval_policy = \""+policy+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return project
}
