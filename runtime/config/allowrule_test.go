package config

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestAppendAllowRuleKeepsTheRestOfTheFile(t *testing.T) {
	cases := []struct{ name, before, after string }{
		{"no file", "", "[approvals]\nallow = [\"shell:go test *\"]\n"},
		{"no table",
			"# my settings\n[agent]\nmax_steps = 7 # keep\n",
			"# my settings\n[agent]\nmax_steps = 7 # keep\n\n[approvals]\nallow = [\"shell:go test *\"]\n"},
		{"no trailing newline", "[agent]\nmax_steps = 7", "[agent]\nmax_steps = 7\n\n[approvals]\nallow = [\"shell:go test *\"]\n"},
		{"table without allow",
			"[approvals] # mine\n\n[agent]\nmax_steps = 7\n",
			"[approvals] # mine\nallow = [\"shell:go test *\"]\n\n[agent]\nmax_steps = 7\n"},
		{"empty list", "[approvals]\nallow = []\n", "[approvals]\nallow = [\"shell:go test *\"]\n"},
		{"one rule", "[approvals]\nallow = [\"edit:docs/**\"] # x\n[agent]\nmax_steps = 7\n",
			"[approvals]\nallow = [\"edit:docs/**\", \"shell:go test *\"] # x\n[agent]\nmax_steps = 7\n"},
		{"multi-line with comments and a trailing comma",
			"[approvals]\nallow = [\n  'edit:docs/**', # docs ] are fine\n  \"shell:git status\",\n]\n",
			"[approvals]\nallow = [\n  'edit:docs/**', # docs ] are fine\n  \"shell:git status\",\n \"shell:go test *\"]\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			if tc.before != "" {
				writeFile(t, UserFile(home), tc.before)
			}
			path, err := AppendAllowRule(home, "shell:go test *")
			if err != nil {
				t.Fatal(err)
			}
			if path != UserFile(home) {
				t.Errorf("wrote %s, want the user's file", path)
			}
			got, _ := os.ReadFile(path)
			if string(got) != tc.after {
				t.Errorf("file after:\n%s\nwant:\n%s", got, tc.after)
			}
			cfg, _, err := Load(LoadOptions{Home: home})
			if err != nil || cfg.Approvals.Allow[len(cfg.Approvals.Allow)-1] != "shell:go test *" {
				t.Errorf("loaded allow = %q, %v", cfg.Approvals.Allow, err)
			}
			// Adding it again changes nothing.
			if _, err := AppendAllowRule(home, "shell:go test *"); err != nil {
				t.Fatal(err)
			}
			if again, _ := os.ReadFile(path); string(again) != tc.after {
				t.Errorf("a second add changed the file:\n%s", again)
			}
		})
	}
}

func TestAppendAllowRuleRefuses(t *testing.T) {
	home := t.TempDir()
	if _, err := AppendAllowRule(home, "shell:go test; rm *"); err == nil {
		t.Error("a bad rule was added")
	}
	writeFile(t, UserFile(home), "approvals = { allow = [\"edit:a\"] }\n")
	before, _ := os.ReadFile(UserFile(home))
	_, err := AppendAllowRule(home, "edit:b")
	wantErrNaming(t, err, "by hand", UserFile(home))
	if after, _ := os.ReadFile(UserFile(home)); string(after) != string(before) {
		t.Errorf("a refused edit changed the file: %s", after)
	}
}

func TestAppendAllowRuleKeepsEveryConcurrentRule(t *testing.T) {
	home := t.TempDir()
	writeFile(t, UserFile(home), "[agent]\nmax_steps = 7\n")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := AppendAllowRule(home, "shell:tool"+strings.Repeat("x", i)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	cfg, _, err := Load(LoadOptions{Home: home})
	if err != nil || len(cfg.Approvals.Allow) != 8 || cfg.Agent.MaxSteps != 7 {
		t.Errorf("after 8 concurrent adds: allow = %q, max_steps %d, %v", cfg.Approvals.Allow, cfg.Agent.MaxSteps, err)
	}
}

func TestProjectMayNotAllowCalls(t *testing.T) {
	home, cwd := dirs(t)
	for _, content := range []string{
		"[approvals]\nallow = [\"shell:rm *\"]\n",
		"approvals.allow = [\"edit:**\"]\n",
		"[approvals]\nallow = []\n",
	} {
		_, _, err := loadProject(t, home, cwd, "", content)
		wantErrNaming(t, err, "approvals.allow", ProjectFile(cwd), UserFile(home))
	}
	// The user's own file may; a bad rule there is named.
	os.Remove(ProjectFile(cwd))
	writeFile(t, UserFile(home), "[approvals]\nallow = [\"shell:go test *\"]\n")
	if _, _, err := Load(LoadOptions{Home: home, Cwd: cwd}); err != nil {
		t.Fatalf("user rules refused: %v", err)
	}
	writeFile(t, UserFile(home), "[approvals]\nallow = [\"shell:go test && rm *\"]\n")
	_, _, err := Load(LoadOptions{Home: home, Cwd: cwd})
	wantErrNaming(t, err, "approvals.allow", "go test && rm")
}

func TestAppendAllowRuleDefaultsToTheHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv(HomeEnv, home)
	path, err := AppendAllowRule("", "edit:docs/**")
	if err != nil || path != UserFile(home) {
		t.Fatalf("AppendAllowRule(\"\") wrote %q, %v; want %s", path, err, UserFile(home))
	}
}

// A user file kept elsewhere and linked into $SCV_HOME (a dotfiles
// repository) was replaced by a plain copy on "Always allow": the link was
// gone, and later edits of the linked file no longer reached scv. The rule
// is written into the file the link names, and the link stays.
func TestAppendAllowRuleKeepsALinkedUserFile(t *testing.T) {
	home := t.TempDir()
	target := filepath.Join(t.TempDir(), "scv.toml")
	writeFile(t, target, "[approvals]\nallow = [\"shell:ls *\"]\n")
	if err := os.Symlink(target, UserFile(home)); err != nil {
		t.Fatal(err)
	}
	if _, err := AppendAllowRule(home, "shell:cat *"); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Lstat(UserFile(home)); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("config.toml is no longer a link: %v %v", info, err)
	}
	if data, err := os.ReadFile(target); err != nil || !strings.Contains(string(data), `"shell:cat *"`) {
		t.Errorf("the linked file holds %q (%v), want the new rule", data, err)
	}
}
