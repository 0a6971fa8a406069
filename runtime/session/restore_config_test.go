package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"scv/runtime/config"
	"scv/runtime/store"
)

func TestStoredValuesBeatTheServersFlagsOnALoad(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	h := store.Header{Provider: config.KindOpenAI, Model: "created-model", ApprovalPolicy: "on-risk"}
	flags := config.Overrides{Model: "flag-model", ApprovalPolicy: "auto", BaseURL: "http://flag"}

	own, rest, warning := storedOverrides(home, cwd, h, &SessionConfigured{Model: "configured-model", ApprovalPolicy: "always"}, flags)
	if want := (config.Overrides{Provider: config.KindOpenAI, Model: "configured-model", ApprovalPolicy: "always"}); own != want || warning != nil {
		t.Errorf("configured: own = %+v, %v; want %+v", own, warning, want)
	}
	if want := (config.Overrides{BaseURL: "http://flag"}); rest != want {
		t.Errorf("the flags left = %+v, want only what the session did not store: %+v", rest, want)
	}
	if own, _, _ := storedOverrides(home, cwd, h, nil, flags); own.Model != "created-model" || own.ApprovalPolicy != "on-risk" {
		t.Errorf("never configured: own = %+v, want the header's values", own)
	}
	// A file from before the header named a model: the flag fills the gap.
	if _, rest, _ := storedOverrides(home, cwd, store.Header{}, nil, flags); rest != flags {
		t.Errorf("nothing stored: the flags left = %+v, want all of them", rest)
	}
}

// The project rule holds on a load: a stored policy looser than the one
// the project file now sets yields to the project's, whatever the flags.
func TestAStoredPolicyLooserThanTheProjectsYieldsOnALoad(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	project := config.ProjectFile(cwd)
	if err := os.MkdirAll(filepath.Dir(project), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(project, []byte("[agent]\napproval_policy = \"always\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h := store.Header{Model: "m", ApprovalPolicy: "on-risk"}
	own, rest, warning := storedOverrides(home, cwd, h, &SessionConfigured{Model: "m", ApprovalPolicy: "auto"}, config.Overrides{ApprovalPolicy: "auto"})
	if own.ApprovalPolicy != "always" || rest.ApprovalPolicy != "" {
		t.Errorf("policy = %q (flags %q), want the project's always", own.ApprovalPolicy, rest.ApprovalPolicy)
	}
	if warning == nil || !strings.Contains(warning.Error(), project) {
		t.Errorf("warning = %v, want one naming %s", warning, project)
	}
	if own, _, warning := storedOverrides(home, cwd, store.Header{Model: "m", ApprovalPolicy: "always"}, nil, config.Overrides{}); own.ApprovalPolicy != "always" || warning != nil {
		t.Errorf("a stored policy as strict as the project's: %q, %v", own.ApprovalPolicy, warning)
	}
}
