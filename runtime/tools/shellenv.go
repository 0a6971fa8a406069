package tools

import (
	"path"
	"regexp"
	"strings"
)

// ShellEnv says which variables of scv's environment a shell command sees.
// A command's output goes to the model, the editors and the session log,
// so credentials are removed by default:
//   - the provider's key variable, and any variable holding the key's
//     value, always (not even Allow brings them back);
//   - names that look secret (see secretName);
//   - values that are URLs with a password in them (user:pass@host);
//   - names matching Deny.
//
// Allow re-admits variables removed only for their name or value.
type ShellEnv struct {
	ProviderKeyEnv string   // provider.api_key_env
	ProviderKey    string   // the key in use, from the environment or provider.api_key
	Allow          []string // tools.shell.env_allow: names or path.Match globs
	Deny           []string // tools.shell.env_deny: names or path.Match globs
}

// secretNameParts mark a name as a credential wherever they occur in it
// (compared in upper case).
var secretNameParts = [...]string{"API_KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "PRIVATE_KEY"}

// secretNameSuffixes mark a name as a credential at its end.
var secretNameSuffixes = [...]string{"_KEY", "_KEY_ID", "_PWD"}

// urlWithPassword finds scheme://user:password@ anywhere in a value, so
// lists of URLs are caught too.
var urlWithPassword = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^/?#@\s:]*:[^/?#@\s]*@`)

// Filter returns the variables of env a command may see, in order. Other
// programs scv starts for the session (MCP servers) pass their
// environment through it too, so one rule decides what is secret.
func (e ShellEnv) Filter(env []string) []string {
	kept := make([]string, 0, len(env))
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		if e.isProviderKey(name, value) || matchAny(e.Deny, name) {
			continue
		}
		if (secretName(name) || secretValue(value)) && !matchAny(e.Allow, name) {
			continue
		}
		kept = append(kept, kv)
	}
	return kept
}

func (e ShellEnv) isProviderKey(name, value string) bool {
	return e.ProviderKeyEnv != "" && name == e.ProviderKeyEnv ||
		e.ProviderKey != "" && value == e.ProviderKey
}

func secretName(name string) bool {
	upper := strings.ToUpper(name)
	for _, part := range secretNameParts {
		if strings.Contains(upper, part) {
			return true
		}
	}
	for _, suffix := range secretNameSuffixes {
		if strings.HasSuffix(upper, suffix) {
			return true
		}
	}
	return false
}

func secretValue(value string) bool {
	return strings.Contains(value, "@") && urlWithPassword.MatchString(value)
}

// matchAny reports whether name is one of patterns or matches one of them
// as a path.Match glob. Malformed patterns are refused when the config is
// loaded; here they simply match nothing.
func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok || p == name {
			return true
		}
	}
	return false
}
