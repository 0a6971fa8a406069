package config

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestAPIKey(t *testing.T) {
	c := Defaults()
	if got := c.APIKey(env(map[string]string{"OPENAI_API_KEY": "from-env"})); got != "from-env" {
		t.Fatalf("APIKey = %q", got)
	}
	c.Provider.APIKey = "from-file"
	if got := c.APIKey(env(map[string]string{"OPENAI_API_KEY": "from-env"})); got != "from-file" {
		t.Fatalf("APIKey = %q, want the configured key first", got)
	}
}

func TestCheckCredentials(t *testing.T) {
	home := "/home/u/.scv"
	withKey := env(map[string]string{"OPENAI_API_KEY": "sk-live"})
	noKey := env(nil)
	cases := []struct {
		name    string
		edit    func(*Config)
		getenv  func(string) string
		wantErr bool
	}{
		{name: "key in env", getenv: withKey},
		{name: "no key", getenv: noKey, wantErr: true},
		{name: "empty env var", getenv: env(map[string]string{"OPENAI_API_KEY": ""}), wantErr: true},
		{name: "key in file", edit: func(c *Config) { c.Provider.APIKey = "sk-file" }, getenv: noKey},
		{name: "other env var", edit: func(c *Config) { c.Provider.APIKeyEnv = "MY_KEY" },
			getenv: env(map[string]string{"MY_KEY": "k"})},
		{name: "replay needs no key", edit: func(c *Config) { c.Provider.Kind = KindReplay }, getenv: noKey},
		{name: "localhost", edit: func(c *Config) { c.Provider.BaseURL = "http://localhost:11434/v1" }, getenv: noKey},
		{name: "LOCALHOST", edit: func(c *Config) { c.Provider.BaseURL = "http://LOCALHOST:8000/v1" }, getenv: noKey},
		{name: "127.0.0.1", edit: func(c *Config) { c.Provider.BaseURL = "http://127.0.0.1:8080/v1" }, getenv: noKey},
		{name: "127.0.0.2", edit: func(c *Config) { c.Provider.BaseURL = "http://127.0.0.2/v1" }, getenv: noKey},
		{name: "::1", edit: func(c *Config) { c.Provider.BaseURL = "http://[::1]:8000/v1" }, getenv: noKey},
		{name: "lookalike host", edit: func(c *Config) { c.Provider.BaseURL = "https://localhost.evil.example/v1" },
			getenv: noKey, wantErr: true},
		{name: "userinfo trick", edit: func(c *Config) { c.Provider.BaseURL = "https://localhost@evil.example/v1" },
			getenv: noKey, wantErr: true},
		{name: "remote LAN host", edit: func(c *Config) { c.Provider.BaseURL = "http://192.168.1.5:11434/v1" },
			getenv: noKey, wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := Defaults()
			if tc.edit != nil {
				tc.edit(&c)
			}
			err := c.CheckCredentials(tc.getenv, home)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if err != nil && !errors.Is(err, ErrProviderNotConfigured) {
				t.Fatalf("%v does not wrap ErrProviderNotConfigured", err)
			}
		})
	}
}

func TestCredentialsMessage(t *testing.T) {
	home := "/home/u/.scv"
	c := Defaults()
	err := c.CheckCredentials(env(nil), home)
	var ce *CredentialsError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v, want a *CredentialsError", err)
	}
	for _, want := range []string{"provider.api_key_env", "OPENAI_API_KEY", filepath.Join(home, "config.toml")} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}

	// A key that exists under another variable name is not echoed.
	c.Provider.APIKeyEnv = "SCV_TEST_KEY"
	err = c.CheckCredentials(env(map[string]string{"OPENAI_API_KEY": "sk-should-not-appear"}), home)
	if err == nil || strings.Contains(err.Error(), "sk-should-not-appear") || !strings.Contains(err.Error(), "SCV_TEST_KEY") {
		t.Fatalf("message = %v", err)
	}

	c.Provider.APIKeyEnv = ""
	err = c.CheckCredentials(env(nil), home)
	if err == nil || !strings.Contains(err.Error(), "provider.api_key_env is empty") {
		t.Fatalf("message = %v", err)
	}
}
