package tools

import (
	"slices"
	"strings"
	"testing"
)

const testProviderKey = "gsk-provider-key-0123456789"

// secretEnv is an environment holding the provider's key under a name that
// does not look secret, copies of it, and other credentials.
var secretEnv = []string{
	"GROQ_KEY=" + testProviderKey,
	"ALIAS=" + testProviderKey,
	"AWS_ACCESS_KEY_ID=AKIAEXAMPLE",
	"STRIPE_KEY=sk_live_x",
	"DB_PASSWORD=hunter2",
	"MYSQL_PWD_PASSWORD_FILE=x",
	"GITHUB_TOKEN=ghp_x",
	"CLIENT_SECRET=x",
	"OPENAI_API_KEY=sk-x",
	"DATABASE_URL=postgres://app:s3cret@db.example:5432/app",
	"PIP_INDEX_URL=https://user:tok@pypi.example/simple",
	"PLAIN=visible",
	"PUBLIC_URL=https://example.com/x",
	"USER_AT_HOST=https://user@example.com/x",
	"KEYBOARD=us",
	"PATH=/usr/bin:/bin",
}

func names(env []string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		out = append(out, name)
	}
	return out
}

func TestShellEnvFilter(t *testing.T) {
	base := ShellEnv{ProviderKeyEnv: "GROQ_KEY", ProviderKey: testProviderKey}
	cases := []struct {
		name        string
		allow, deny []string
		want        []string
	}{
		{name: "defaults", want: []string{"PLAIN", "PUBLIC_URL", "USER_AT_HOST", "KEYBOARD", "PATH"}},
		{name: "allow re-admits all but the provider key",
			allow: []string{"GROQ_KEY", "ALIAS", "DB_*", "GITHUB_TOKEN"},
			want:  []string{"DB_PASSWORD", "GITHUB_TOKEN", "PLAIN", "PUBLIC_URL", "USER_AT_HOST", "KEYBOARD", "PATH"}},
		{name: "allow everything still hides the key",
			allow: []string{"*"},
			want: []string{"AWS_ACCESS_KEY_ID", "STRIPE_KEY", "DB_PASSWORD", "MYSQL_PWD_PASSWORD_FILE", "GITHUB_TOKEN",
				"CLIENT_SECRET", "OPENAI_API_KEY", "DATABASE_URL", "PIP_INDEX_URL", "PLAIN", "PUBLIC_URL", "USER_AT_HOST", "KEYBOARD", "PATH"}},
		{name: "deny removes more and beats allow",
			allow: []string{"GITHUB_TOKEN", "PLAIN"}, deny: []string{"PLAIN", "PUBLIC_*", "GITHUB_TOKEN"},
			want: []string{"USER_AT_HOST", "KEYBOARD", "PATH"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := base
			e.Allow, e.Deny = tc.allow, tc.deny
			got := e.Filter(secretEnv)
			if !slices.Equal(names(got), tc.want) {
				t.Fatalf("kept %v, want %v", names(got), tc.want)
			}
			for _, kv := range got {
				if strings.Contains(kv, testProviderKey) {
					t.Fatalf("provider key kept in %q", kv)
				}
			}
		})
	}
}

// TestShellDoesNotSeeProviderKey: a command printing its environment shows
// neither the key variable nor the key under another name.
func TestShellDoesNotSeeProviderKey(t *testing.T) {
	t.Setenv("GROQ_KEY", testProviderKey)
	t.Setenv("SOME_COPY", testProviderKey)
	t.Setenv("SCV_TEST_PLAIN", "visible")
	ws := newTestWorkspace(t)
	tools := NewRegistry(Builtin(ws, testLimits(), ShellEnv{ProviderKeyEnv: "GROQ_KEY", ProviderKey: testProviderKey})...)
	shell, _ := tools.Get("shell")
	res := run(t, shell, map[string]any{"command": "env"})
	wantOK(t, res)
	// Only the lines in question are shown: the rest is this machine's.
	for _, line := range strings.Split(res.Output, "\n") {
		if strings.Contains(line, testProviderKey) || strings.HasPrefix(line, "GROQ_KEY=") {
			t.Fatalf("the provider key reached the command: %q", line)
		}
	}
	if !strings.Contains(res.Output, "\nSCV_TEST_PLAIN=visible\n") && !strings.HasPrefix(res.Output, "SCV_TEST_PLAIN=visible\n") {
		t.Fatal("an ordinary variable was dropped")
	}
}
