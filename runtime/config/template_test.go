package config

import (
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

func equalConfig(a, b Config) bool {
	ha, hb := a.Provider.Headers, b.Provider.Headers
	a.Provider.Headers, b.Provider.Headers = nil, nil
	return reflect.DeepEqual(a, b) && maps.Equal(ha, hb)
}

// settingLine matches the template's commented-out settings, not its prose
// or its indented examples.
var settingLine = regexp.MustCompile(`^# ([a-z_]+ = .*)$`)

func TestTemplateParsesBackToDefaults(t *testing.T) {
	var uncommented []string
	keys := 0
	for _, line := range strings.Split(Template(), "\n") {
		if m := settingLine.FindStringSubmatch(line); m != nil {
			line = m[1]
			keys++
		}
		uncommented = append(uncommented, line)
	}
	var cfg Config
	meta, err := toml.Decode(strings.Join(uncommented, "\n"), &cfg)
	if err != nil {
		t.Fatalf("uncommented template does not parse: %v", err)
	}
	if u := meta.Undecoded(); len(u) != 0 {
		t.Fatalf("template has unknown keys %v", u)
	}
	if !equalConfig(cfg, Defaults()) {
		t.Fatalf("template gives\n%+v\nwant\n%+v", cfg, Defaults())
	}
	// Every leaf key of Config appears: count the TOML tags.
	if want := countLeafKeys(); keys != want {
		t.Fatalf("template shows %d keys, Config has %d", keys, want)
	}
	for _, example := range []string{`base_url = "http://localhost:11434/v1"`, `kind = "replay"`, "vLLM", "OPENAI_API_KEY"} {
		if !strings.Contains(Template(), example) {
			t.Errorf("template lacks example %q", example)
		}
	}
}

// countLeafKeys counts the keys of every section by encoding a Config.
func countLeafKeys() int {
	var b strings.Builder
	if err := toml.NewEncoder(&b).Encode(Defaults()); err != nil {
		panic(err)
	}
	n := 0
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.Contains(line, " = ") {
			n++
		}
	}
	return n + 1 // headers is nil in Defaults, so the encoder omits it
}

func TestCommentedTemplateLoadsAsDefaults(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	path, err := Init(home)
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(home, "config.toml") {
		t.Fatalf("path = %q", path)
	}
	cfg, src, err := Load(LoadOptions{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	if !src.UserFileFound || !equalConfig(cfg, Defaults()) {
		t.Fatalf("found=%v cfg=%+v", src.UserFileFound, cfg)
	}
}

func TestInitPermissionsAndNoOverwrite(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	path, err := Init(home)
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{home: 0o700, path: 0o600} {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode().Perm(); got != want {
			t.Errorf("%s mode %04o, want %04o", p, got, want)
		}
	}
	if err := os.WriteFile(path, []byte("# mine\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Init(home)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("second Init: %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "# mine\n" {
		t.Fatalf("existing file overwritten: %q", data)
	}
}
