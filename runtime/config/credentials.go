package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// ErrProviderNotConfigured is wrapped by every CheckCredentials failure; the
// server maps it to the wire code provider_not_configured.
var ErrProviderNotConfigured = errors.New("provider not configured")

// CredentialsError says which setting is missing and where to fix it. It
// never holds a key.
type CredentialsError struct {
	Kind      string // provider.kind
	APIKeyEnv string // provider.api_key_env, possibly empty
	File      string // the user's config file to edit
}

func (e *CredentialsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "provider %q has no API key: ", e.Kind)
	if e.APIKeyEnv != "" {
		fmt.Fprintf(&b, "the environment variable named by provider.api_key_env (%s) is not set in scv's environment; export %s, or ", e.APIKeyEnv, e.APIKeyEnv)
	} else {
		b.WriteString("provider.api_key_env is empty; ")
	}
	fmt.Fprintf(&b, "set provider.api_key_env (or provider.api_key) in %s", e.File)
	return b.String()
}

func (e *CredentialsError) Unwrap() error { return ErrProviderNotConfigured }

// APIKey returns provider.api_key when set, else the variable named by
// provider.api_key_env.
func (c Config) APIKey(getenv func(string) string) string {
	if c.Provider.APIKey != "" {
		return c.Provider.APIKey
	}
	if c.Provider.APIKeyEnv == "" || getenv == nil {
		return ""
	}
	return getenv(c.Provider.APIKeyEnv)
}

// CheckCredentials fails when the provider would need a key it does not
// have. A loopback base_url is exempt: local servers (Ollama, vLLM,
// llama.cpp) take no key.
func (c Config) CheckCredentials(getenv func(string) string, home string) error {
	if c.Provider.Kind != KindOpenAI {
		return nil
	}
	if c.APIKey(getenv) != "" || IsLoopbackURL(c.Provider.BaseURL) {
		return nil
	}
	return &CredentialsError{Kind: c.Provider.Kind, APIKeyEnv: c.Provider.APIKeyEnv, File: UserFile(home)}
}

// IsLoopbackURL reports whether raw's host is localhost or a loopback
// address.
func IsLoopbackURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
