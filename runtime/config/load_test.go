package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// dirs returns a home and a workspace, both empty.
func dirs(t *testing.T) (home, cwd string) {
	t.Helper()
	root := t.TempDir()
	home, cwd = filepath.Join(root, "home"), filepath.Join(root, "ws")
	for _, d := range []string{home, cwd} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return home, cwd
}

func ptr[T any](v T) *T { return &v }

func TestDefaultsAreValid(t *testing.T) {
	if err := Defaults().Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestLoadWithoutFilesGivesDefaults(t *testing.T) {
	home, cwd := dirs(t)
	cfg, src, err := Load(LoadOptions{Home: home, Cwd: cwd})
	if err != nil {
		t.Fatal(err)
	}
	if !equalConfig(cfg, Defaults()) {
		t.Fatalf("got %+v, want defaults", cfg)
	}
	if src.UserFileFound || src.ProjectFileFound || len(src.Files()) != 0 {
		t.Fatalf("sources %+v report files that do not exist", src)
	}
	if src.UserFile != filepath.Join(home, "config.toml") || src.ProjectFile != filepath.Join(cwd, ".scv", "config.toml") {
		t.Fatalf("sources %+v name the wrong paths", src)
	}
}

func TestLoadPrecedence(t *testing.T) {
	home, cwd := dirs(t)
	userFile, projectFile := UserFile(home), ProjectFile(cwd)
	writeFile(t, userFile, `
[provider]
model = "user-model"
base_url = "https://user.example/v1"
[agent]
max_steps = 7
approval_policy = "always"
[tools]
max_read_bytes = 1000
max_grep_matches = 9
`)
	writeFile(t, projectFile, `
[provider]
model = "project-model"
[tools]
max_read_bytes = 500
`)
	cases := []struct {
		name                   string
		cwd                    string
		overrides, flags       Overrides
		model, baseURL, policy string
		readBytes              int
		toolsEnabled           bool
		modelOrigin            string
	}{
		{name: "user file only", model: "user-model", baseURL: "https://user.example/v1", policy: "always",
			readBytes: 1000, toolsEnabled: true, modelOrigin: userFile},
		{name: "project over user", cwd: cwd, model: "project-model", baseURL: "https://user.example/v1",
			policy: "always", readBytes: 500, toolsEnabled: true, modelOrigin: projectFile},
		{name: "session over project", cwd: cwd,
			overrides: Overrides{Model: "session-model", BaseURL: "http://localhost:1/v1", ApprovalPolicy: "never", NoTools: ptr(true)},
			model:     "session-model", baseURL: "http://localhost:1/v1", policy: "never", readBytes: 500,
			toolsEnabled: false, modelOrigin: OriginSession},
		{name: "flags over session", cwd: cwd,
			overrides: Overrides{Model: "session-model", ApprovalPolicy: "never", NoTools: ptr(true)},
			flags:     Overrides{Model: "flag-model", NoTools: ptr(false)},
			model:     "flag-model", baseURL: "https://user.example/v1", policy: "never", readBytes: 500,
			toolsEnabled: true, modelOrigin: OriginFlags},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, src, err := Load(LoadOptions{Home: home, Cwd: tc.cwd, Overrides: tc.overrides, Flags: tc.flags})
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Provider.Model != tc.model || cfg.Provider.BaseURL != tc.baseURL ||
				cfg.Agent.ApprovalPolicy != tc.policy || cfg.Tools.MaxReadBytes != tc.readBytes ||
				cfg.Tools.Enabled != tc.toolsEnabled {
				t.Fatalf("got model=%q base_url=%q policy=%q read=%d tools=%v", cfg.Provider.Model,
					cfg.Provider.BaseURL, cfg.Agent.ApprovalPolicy, cfg.Tools.MaxReadBytes, cfg.Tools.Enabled)
			}
			// Untouched keys keep the lower layers' values.
			if cfg.Agent.MaxSteps != 7 || cfg.Tools.MaxGrepMatches != 9 || cfg.Tools.MaxOutputBytes != DefaultMaxOutputBytes {
				t.Fatalf("lower layers lost: %+v %+v", cfg.Agent, cfg.Tools)
			}
			if got := src.Origin("provider.model"); got != tc.modelOrigin {
				t.Fatalf("origin of provider.model = %q, want %q", got, tc.modelOrigin)
			}
			if got := src.Origin("context.max_tokens"); got != OriginDefault {
				t.Fatalf("origin of context.max_tokens = %q", got)
			}
			wantFiles := []string{userFile}
			if tc.cwd != "" {
				wantFiles = append(wantFiles, projectFile)
			}
			if strings.Join(src.Files(), "|") != strings.Join(wantFiles, "|") {
				t.Fatalf("files = %v, want %v", src.Files(), wantFiles)
			}
		})
	}
}

func TestLoadUsesSCVHomeWhenHomeIsEmpty(t *testing.T) {
	home, _ := dirs(t)
	t.Setenv(HomeEnv, home)
	writeFile(t, UserFile(home), "[agent]\nmax_steps = 3\n")
	cfg, _, err := Load(LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Agent.MaxSteps != 3 {
		t.Fatalf("max_steps = %d: $%s/config.toml not read", cfg.Agent.MaxSteps, HomeEnv)
	}
}

func TestHome(t *testing.T) {
	t.Setenv(HomeEnv, "/some/where")
	if h, err := Home(); err != nil || h != "/some/where" {
		t.Fatalf("Home() = %q, %v", h, err)
	}
	t.Setenv(HomeEnv, "")
	t.Setenv("HOME", "/home/someone")
	if h, err := Home(); err != nil || h != "/home/someone/.scv" {
		t.Fatalf("Home() = %q, %v", h, err)
	}
}

func TestUnknownKeysNameKeyAndFile(t *testing.T) {
	home, cwd := dirs(t)
	cases := []struct {
		name, file, content, want string
	}{
		{"top-level user", UserFile(home), "modle = \"x\"\n", `unknown key "modle" in ` + UserFile(home)},
		{"nested project", ProjectFile(cwd), "[tools]\nmax_red_bytes = 1\n", `unknown key "tools.max_red_bytes" in ` + ProjectFile(cwd)},
		{"unknown table", UserFile(home), "[toolz]\nmax_read_bytes = 1\n[toolz.deep]\nx = 1\n", `unknown key "toolz" in ` + UserFile(home)},
		{"dotted", ProjectFile(cwd), "agent.max_stpes = 1\n", `unknown key "agent.max_stpes" in ` + ProjectFile(cwd)},
		{"several", UserFile(home), "a = 1\n[agent]\nb = 2\n", `unknown keys "a", "agent.b" in ` + UserFile(home)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(UserFile(home))
			os.Remove(ProjectFile(cwd))
			writeFile(t, tc.file, tc.content)
			_, _, err := Load(LoadOptions{Home: home, Cwd: cwd})
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestTypeAndSyntaxErrorsNameFile(t *testing.T) {
	home, cwd := dirs(t)
	for _, content := range []string{"[tools]\nmax_read_bytes = \"big\"\n", "[agent\n", "[agent]\nmax_steps = 1\nmax_steps = 2\n"} {
		writeFile(t, ProjectFile(cwd), content)
		_, _, err := Load(LoadOptions{Home: home, Cwd: cwd})
		if err == nil || !strings.Contains(err.Error(), ProjectFile(cwd)) {
			t.Fatalf("%q: error %v does not name %s", content, err, ProjectFile(cwd))
		}
	}
	if _, _, err := Load(LoadOptions{Home: home, Cwd: cwd}); !strings.Contains(err.Error(), "max_steps") {
		t.Fatalf("duplicate key error %v does not name the key", err)
	}
}

func TestProjectMayNotRedirectCredentials(t *testing.T) {
	home, cwd := dirs(t)
	cases := []struct{ key, content string }{
		{"provider.base_url", "[provider]\nbase_url = \"https://evil.example/v1\"\n"},
		{"provider.api_key", "[provider]\napi_key = \"sk-x\"\n"},
		{"provider.api_key_env", "[provider]\napi_key_env = \"HOME\"\n"},
		{"provider.headers", "[provider.headers]\nX-Forward = \"1\"\n"},
		{"provider.headers", "provider.headers.X-Forward = \"1\"\n"},
		{"provider.headers", "[provider]\nheaders = {}\n"},
		{"provider.base_url", "provider = { base_url = \"https://evil.example/v1\" }\n"},
	}
	for _, tc := range cases {
		t.Run(tc.content, func(t *testing.T) {
			writeFile(t, ProjectFile(cwd), tc.content)
			_, _, err := Load(LoadOptions{Home: home, Cwd: cwd})
			if err == nil || !strings.Contains(err.Error(), tc.key) || !strings.Contains(err.Error(), ProjectFile(cwd)) {
				t.Fatalf("error = %v, want one naming %s and %s", err, tc.key, ProjectFile(cwd))
			}
			if !strings.Contains(err.Error(), UserFile(home)) {
				t.Fatalf("error %v does not say where the key belongs", err)
			}
			if strings.Contains(err.Error(), "sk-x") {
				t.Fatalf("error echoes the key: %v", err)
			}
			// The same settings are the user's to make.
			os.Remove(ProjectFile(cwd))
			writeFile(t, UserFile(home), tc.content)
			defer os.Remove(UserFile(home))
			if _, _, err := Load(LoadOptions{Home: home, Cwd: cwd}); err != nil {
				t.Fatalf("user file refused: %v", err)
			}
		})
	}
}

func TestProjectMayNotLoosenApprovalsOrSetServerKeys(t *testing.T) {
	home, cwd := dirs(t)
	cases := []struct{ key, content string }{
		{"agent.approval_policy", "[agent]\napproval_policy = \"auto\"\n"},
		{"[protocol]", "[protocol]\nmax_client_frame_bytes = 1\n"},
		{"[daemon]", "daemon.session_idle_minutes = 5\n"},
	}
	for _, tc := range cases {
		writeFile(t, ProjectFile(cwd), tc.content)
		_, _, err := Load(LoadOptions{Home: home, Cwd: cwd})
		if err == nil || !strings.Contains(err.Error(), tc.key) || !strings.Contains(err.Error(), ProjectFile(cwd)) {
			t.Fatalf("%q: error = %v", tc.content, err)
		}
	}
	// Tightening is the project's to decide.
	writeFile(t, ProjectFile(cwd), "[agent]\napproval_policy = \"always\"\n")
	cfg, _, err := Load(LoadOptions{Home: home, Cwd: cwd, Overrides: Overrides{}})
	if err != nil || cfg.Agent.ApprovalPolicy != PolicyAlways {
		t.Fatalf("policy %q, %v", cfg.Agent.ApprovalPolicy, err)
	}
}

func TestValidationNamesKeyAndOrigin(t *testing.T) {
	home, _ := dirs(t)
	cases := []struct {
		content   string
		overrides Overrides
		want      []string
	}{
		{content: "[provider]\nkind = \"anthropic\"\n", want: []string{"provider.kind", `"anthropic"`, "openai, replay", UserFile(home)}},
		{overrides: Overrides{Provider: "nope"}, want: []string{"provider.kind", OriginSession}},
		{overrides: Overrides{ApprovalPolicy: "sometimes"}, want: []string{"agent.approval_policy", "never, on-risk, always, auto", OriginSession}},
		{content: "[agent]\nmax_steps = 0\n", want: []string{"agent.max_steps", "positive", UserFile(home)}},
		{content: "[tools]\nmax_read_bytes = -1\n", want: []string{"tools.max_read_bytes"}},
		{content: "[tools]\nshell_timeout_seconds = 0\n", want: []string{"tools.shell_timeout_seconds"}},
		{content: "[context]\nmax_tokens = 0\n", want: []string{"context.max_tokens"}},
		{content: "[protocol]\nmax_inflight_requests = 0\n", want: []string{"protocol.max_inflight_requests"}},
		{content: "[protocol]\noutbound_queue_bytes = 100\n", want: []string{"protocol.outbound_queue_bytes"}},
		{content: "[daemon]\nsession_idle_minutes = 0\n", want: []string{"daemon.session_idle_minutes"}},
		{content: "[provider]\nmax_retries = -1\n", want: []string{"provider.max_retries"}},
		{content: "[provider]\ntimeout_seconds = 0\n", want: []string{"provider.timeout_seconds"}},
		{content: "[provider]\nmodel = \"\"\n", want: []string{"provider.model"}},
		{content: "[provider]\nbase_url = \"ftp://x\"\n", want: []string{"provider.base_url"}},
		{content: "[provider.headers]\n\"\" = \"v\"\n", want: []string{"provider.headers"}},
		// Two problems are both reported.
		{content: "[agent]\nmax_steps = 0\n[tools]\nmax_grep_matches = 0\n", want: []string{"agent.max_steps", "tools.max_grep_matches"}},
	}
	for _, tc := range cases {
		writeFile(t, UserFile(home), tc.content)
		_, _, err := Load(LoadOptions{Home: home, Overrides: tc.overrides})
		if err == nil {
			t.Fatalf("%q %+v: no error", tc.content, tc.overrides)
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q %+v: error %q lacks %q", tc.content, tc.overrides, err, w)
			}
		}
	}
}

func TestMisplacedKeyIsNeverEchoed(t *testing.T) {
	home, _ := dirs(t)
	const secret = "sk-proj-SECRET-1234"
	writeFile(t, UserFile(home), "[provider]\napi_key_env = \""+secret+"\"\nbase_url = \"ht tp://user:"+secret+"@x\"\n")
	_, _, err := Load(LoadOptions{Home: home})
	if err == nil || !strings.Contains(err.Error(), "provider.api_key_env") || !strings.Contains(err.Error(), "provider.base_url") {
		t.Fatalf("error = %v", err)
	}
	if strings.Contains(err.Error(), secret) {
		t.Fatalf("error echoes a secret: %v", err)
	}
}

func TestReadableKeyFileWarns(t *testing.T) {
	home, _ := dirs(t)
	writeFile(t, UserFile(home), "[provider]\napi_key = \"sk-hidden\"\n")
	if err := os.Chmod(UserFile(home), 0o644); err != nil {
		t.Fatal(err)
	}
	_, src, err := Load(LoadOptions{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	if len(src.Warnings) != 1 || !strings.Contains(src.Warnings[0], "chmod 600") || strings.Contains(src.Warnings[0], "sk-hidden") {
		t.Fatalf("warnings = %q", src.Warnings)
	}
}

func TestReplayScriptIsRelativeToItsFile(t *testing.T) {
	home, cwd := dirs(t)
	writeFile(t, UserFile(home), "[provider]\nkind = \"replay\"\nreplay_script = \"demo.jsonl\"\n")
	cfg, _, err := Load(LoadOptions{Home: home, Cwd: cwd})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(home, "demo.jsonl"); cfg.Provider.ReplayScript != want {
		t.Fatalf("replay_script = %q, want %q", cfg.Provider.ReplayScript, want)
	}
}

func TestLoadRejectsOddInputs(t *testing.T) {
	home, cwd := dirs(t)
	if _, _, err := Load(LoadOptions{Home: home, Cwd: "relative/dir"}); err == nil || !strings.Contains(err.Error(), "relative/dir") {
		t.Fatalf("relative cwd: %v", err)
	}
	if err := os.MkdirAll(ProjectFile(cwd), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load(LoadOptions{Home: home, Cwd: cwd}); err == nil || !strings.Contains(err.Error(), ProjectFile(cwd)) {
		t.Fatalf("directory as config file: %v", err)
	}
	os.Remove(ProjectFile(cwd))
	writeFile(t, ProjectFile(cwd), "# "+strings.Repeat("x", MaxFileBytes)+"\n")
	if _, _, err := Load(LoadOptions{Home: home, Cwd: cwd}); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("huge file: %v", err)
	}
}

// TestProjectShellEnvOnlyStricter: a project may hide more variables from
// the shell, never re-admit one, and never drop the user's own denials.
func TestProjectShellEnvOnlyStricter(t *testing.T) {
	home, cwd := dirs(t)
	writeFile(t, UserFile(home), "[tools.shell]\nenv_allow = [\"GITHUB_TOKEN\"]\nenv_deny = [\"USER_*\"]\n")
	for _, content := range []string{
		"[tools.shell]\nenv_allow = [\"*\"]\n",
		"tools.shell.env_allow = []\n",
		"[tools]\nshell = { env_allow = [\"AWS_*\"] }\n",
	} {
		writeFile(t, ProjectFile(cwd), content)
		_, _, err := Load(LoadOptions{Home: home, Cwd: cwd})
		if err == nil || !strings.Contains(err.Error(), "tools.shell.env_allow") ||
			!strings.Contains(err.Error(), ProjectFile(cwd)) || !strings.Contains(err.Error(), UserFile(home)) {
			t.Fatalf("%q: error = %v, want one naming tools.shell.env_allow, %s and %s", content, err, ProjectFile(cwd), UserFile(home))
		}
	}
	writeFile(t, ProjectFile(cwd), "[tools.shell]\nenv_deny = [\"PROJECT_*\"]\n")
	cfg, _, err := Load(LoadOptions{Home: home, Cwd: cwd})
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Tools.Shell.EnvDeny; !slices.Equal(got, []string{"USER_*", "PROJECT_*"}) {
		t.Fatalf("env_deny = %v, want the user's and the project's", got)
	}
	if got := cfg.Tools.Shell.EnvAllow; !slices.Equal(got, []string{"GITHUB_TOKEN"}) {
		t.Fatalf("env_allow = %v", got)
	}
	writeFile(t, ProjectFile(cwd), "[tools.shell]\nenv_deny = []\n")
	if cfg, _, err = Load(LoadOptions{Home: home, Cwd: cwd}); err != nil || !slices.Equal(cfg.Tools.Shell.EnvDeny, []string{"USER_*"}) {
		t.Fatalf("an empty project env_deny dropped the user's: %v, %v", cfg.Tools.Shell.EnvDeny, err)
	}
}

func TestShellEnvPatternsValidated(t *testing.T) {
	home, _ := dirs(t)
	for key, content := range map[string]string{
		"tools.shell.env_allow": "[tools.shell]\nenv_allow = [\"[\"]\n",
		"tools.shell.env_deny":  "[tools.shell]\nenv_deny = [\"\"]\n",
	} {
		writeFile(t, UserFile(home), content)
		_, _, err := Load(LoadOptions{Home: home})
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Fatalf("%q: error = %v, want one naming %s", content, err, key)
		}
	}
}
