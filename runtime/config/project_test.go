package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// loadProject writes content as the project file (and user as the user
// file, when not empty) and loads both.
func loadProject(t *testing.T, home, cwd, user, content string) (Config, Sources, error) {
	t.Helper()
	os.Remove(UserFile(home))
	if user != "" {
		writeFile(t, UserFile(home), user)
	}
	writeFile(t, ProjectFile(cwd), content)
	return Load(LoadOptions{Home: home, Cwd: cwd})
}

func wantErrNaming(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one naming %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("error %q does not name %q", err, p)
		}
	}
}

// A repository must not pick the "model" the user thinks they talk to, nor
// make scv read a file of its choosing as a script.
func TestProjectMayNotChooseProviderOrScript(t *testing.T) {
	home, cwd := dirs(t)
	cases := []struct{ key, content string }{
		{"provider.kind", "[provider]\nkind = \"replay\"\n"},
		{"provider.kind", "provider.kind = \"openai\"\n"},
		{"provider.replay_script", "[provider]\nreplay_script = \"/dev/zero\"\n"},
	}
	for _, tc := range cases {
		t.Run(tc.content, func(t *testing.T) {
			_, _, err := loadProject(t, home, cwd, "", tc.content)
			wantErrNaming(t, err, tc.key, ProjectFile(cwd), UserFile(home))
			// The same settings are the user's to make.
			os.Remove(ProjectFile(cwd))
			writeFile(t, UserFile(home), tc.content)
			if _, _, err := Load(LoadOptions{Home: home, Cwd: cwd}); err != nil {
				t.Fatalf("user file refused: %v", err)
			}
		})
	}
}

// Every limit a project may set can only be lowered below what the user's
// file (or the default) allows.
func TestProjectMayOnlyLowerLimits(t *testing.T) {
	home, cwd := dirs(t)
	d := Defaults()
	limits := []struct {
		table, key string
		def        int
	}{
		{"provider", "timeout_seconds", d.Provider.TimeoutSeconds},
		{"provider", "max_retries", d.Provider.MaxRetries},
		{"agent", "max_steps", d.Agent.MaxSteps},
		{"tools", "max_read_bytes", d.Tools.MaxReadBytes},
		{"tools", "max_output_bytes", d.Tools.MaxOutputBytes},
		{"tools", "shell_timeout_seconds", d.Tools.ShellTimeoutSeconds},
		{"tools", "max_grep_matches", d.Tools.MaxGrepMatches},
		{"context", "max_tokens", d.Context.MaxTokens},
	}
	for _, l := range limits {
		name := l.table + "." + l.key
		t.Run(name, func(t *testing.T) {
			// Above the default, with no user file.
			_, _, err := loadProject(t, home, cwd, "", fmt.Sprintf("[%s]\n%s = %d\n", l.table, l.key, l.def+1))
			wantErrNaming(t, err, name, ProjectFile(cwd), fmt.Sprint(l.def), OriginDefault)

			// Above the user's own limit, even when below the default.
			user := fmt.Sprintf("[%s]\n%s = %d\n", l.table, l.key, l.def-1)
			_, _, err = loadProject(t, home, cwd, user, fmt.Sprintf("[%s]\n%s = %d\n", l.table, l.key, l.def))
			wantErrNaming(t, err, name, ProjectFile(cwd), fmt.Sprint(l.def-1), UserFile(home))

			// Equal or lower is the project's to decide.
			for _, v := range []int{l.def - 1, l.def - 2} {
				if v < 1 {
					continue
				}
				if _, _, err := loadProject(t, home, cwd, user, fmt.Sprintf("[%s]\n%s = %d\n", l.table, l.key, v)); err != nil {
					t.Fatalf("%s = %d refused: %v", name, v, err)
				}
			}
		})
	}
	// The user may raise any of them.
	if _, _, err := loadProject(t, home, cwd, "[agent]\nmax_steps = 1000\n", "[agent]\nmax_steps = 999\n"); err != nil {
		t.Fatalf("project under a raised user limit: %v", err)
	}
}

// What the user switched off stays off; a project may switch tools or
// skills off, never on.
func TestProjectMayOnlySwitchFeaturesOff(t *testing.T) {
	home, cwd := dirs(t)
	for _, key := range []string{"tools.enabled", "skills.enabled"} {
		table, name, _ := strings.Cut(key, ".")
		user := fmt.Sprintf("[%s]\n%s = false\n", table, name)
		_, _, err := loadProject(t, home, cwd, user, fmt.Sprintf("[%s]\n%s = true\n", table, name))
		wantErrNaming(t, err, key, ProjectFile(cwd), UserFile(home))

		cfg, _, err := loadProject(t, home, cwd, "", fmt.Sprintf("[%s]\n%s = false\n", table, name))
		if err != nil {
			t.Fatalf("%s = false refused: %v", key, err)
		}
		if cfg.Tools.Enabled == (key == "tools.enabled") && cfg.Skills.Enabled == (key == "skills.enabled") {
			t.Fatalf("%s = false not applied: %+v %+v", key, cfg.Tools, cfg.Skills)
		}
	}
}

// The policies ordered by what they do to a read-only and to a risky tool
// (run < ask < deny): a project may only choose one at least as strict as
// the user's for both.
func TestProjectMayOnlyTightenApprovalPolicy(t *testing.T) {
	home, cwd := dirs(t)
	allowed := map[[2]string]bool{ // {user, project}
		{PolicyAuto, PolicyOnRisk}:   true,
		{PolicyAuto, PolicyAlways}:   true,
		{PolicyAuto, PolicyNever}:    true,
		{PolicyOnRisk, PolicyAlways}: true,
		{PolicyOnRisk, PolicyNever}:  true,
	}
	for _, user := range Policies() {
		for _, project := range Policies() {
			t.Run(user+" then "+project, func(t *testing.T) {
				cfg, _, err := loadProject(t, home, cwd,
					fmt.Sprintf("[agent]\napproval_policy = %q\n", user),
					fmt.Sprintf("[agent]\napproval_policy = %q\n", project))
				if user == project || allowed[[2]string{user, project}] {
					if err != nil || cfg.Agent.ApprovalPolicy != project {
						t.Fatalf("policy %q, %v", cfg.Agent.ApprovalPolicy, err)
					}
					return
				}
				wantErrNaming(t, err, "agent.approval_policy", ProjectFile(cwd), UserFile(home), fmt.Sprintf("%q", user))
			})
		}
	}
	// With no user file the default (on-risk) is what a project must not loosen.
	os.Remove(UserFile(home))
	_, _, err := loadProject(t, home, cwd, "", "[agent]\napproval_policy = \"auto\"\n")
	wantErrNaming(t, err, "agent.approval_policy", ProjectFile(cwd), DefaultApprovalPolicy)
}

// With the workspace at the user's home directory, <workspace>/.scv is the
// scv home: its config.toml is the user's file, read once, never as a
// project file (whose rules it would break).
func TestUserFileIsNeverTheProjectFile(t *testing.T) {
	ws := t.TempDir()
	home := filepath.Join(ws, ProjectDir)
	writeFile(t, UserFile(home), "[provider]\nbase_url = \"https://user.example/v1\"\n[agent]\napproval_policy = \"auto\"\n")
	// Through a symlink the paths differ but the file is the same.
	link := filepath.Join(t.TempDir(), "home-link")
	if err := os.Symlink(home, link); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{home, link} {
		cfg, src, err := Load(LoadOptions{Home: h, Cwd: ws})
		if err != nil {
			t.Fatalf("home %s: %v", h, err)
		}
		if cfg.Provider.BaseURL != "https://user.example/v1" || cfg.Agent.ApprovalPolicy != PolicyAuto {
			t.Fatalf("home %s: user file not applied: %+v", h, cfg)
		}
		if src.ProjectFileFound || len(src.Files()) != 1 || src.Files()[0] != UserFile(h) {
			t.Fatalf("home %s: files = %v, project found %v", h, src.Files(), src.ProjectFileFound)
		}
	}
}

// A configuration file that is a FIFO (or a device) is refused at once: a
// blocking open would wait for a writer that never comes.
func TestConfigFileMustBeRegular(t *testing.T) {
	home, cwd := dirs(t)
	for _, path := range []string{ProjectFile(cwd), UserFile(home)} {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(path, 0o600); err != nil {
			t.Fatal(err)
		}
		_, _, err := Load(LoadOptions{Home: home, Cwd: cwd})
		wantErrNaming(t, err, path, "not a regular file")
	}
}

// ProjectBoundsOf names the policy a project file sets, whether it
// switches tools off, and the file: a session's ceiling takes them as its
// bounds (runtime/ceiling).
func TestProjectBoundsNameThePolicyToolsOffAndTheFile(t *testing.T) {
	home, cwd := dirs(t)
	os.Remove(UserFile(home))
	if b, err := ProjectBoundsOf(home, cwd); err != nil || b != (ProjectBounds{}) {
		t.Fatalf("without a project file: %+v %v", b, err)
	}
	writeFile(t, ProjectFile(cwd), "[agent]\napproval_policy = \"always\"\n")
	b, err := ProjectBoundsOf(home, cwd)
	if err != nil || b != (ProjectBounds{File: ProjectFile(cwd), ApprovalPolicy: "always"}) {
		t.Fatalf("ProjectBoundsOf = %+v %v", b, err)
	}
	writeFile(t, ProjectFile(cwd), "[tools]\nenabled = false\n")
	b, err = ProjectBoundsOf(home, cwd)
	if err != nil || b != (ProjectBounds{File: ProjectFile(cwd), ToolsOff: true}) {
		t.Fatalf("ProjectBoundsOf = %+v %v", b, err)
	}
	// Tools off in the user's own file are the user's default, not a bound.
	os.Remove(ProjectFile(cwd))
	writeFile(t, UserFile(home), "[tools]\nenabled = false\n")
	if b, err := ProjectBoundsOf(home, cwd); err != nil || b.ToolsOff {
		t.Fatalf("tools off in the user's file: %+v %v", b, err)
	}
}
