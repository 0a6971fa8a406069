package config

import (
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// Defaults of an [mcp_servers.NAME] table; Codex uses the same.
const (
	DefaultMCPEnabled           = true
	DefaultMCPStartupTimeoutSec = 10
	DefaultMCPToolTimeoutSec    = 60
)

// MCP transports, as status reports name them.
const (
	MCPTransportStdio = "stdio"
	MCPTransportHTTP  = "http"
)

// MCPServer is one [mcp_servers.NAME] table: a Model Context Protocol
// server whose tools are offered to the model. The keys are Codex's, so a
// user can copy theirs; Trust is scv's own.
type MCPServer struct {
	// stdio: a program scv starts, speaking MCP on its stdin and stdout.
	Command string            `toml:"command" json:"command,omitempty"`
	Args    []string          `toml:"args" json:"args,omitempty"`
	Env     map[string]string `toml:"env" json:"env,omitempty"`
	Cwd     string            `toml:"cwd" json:"cwd,omitempty"`
	// streamable HTTP: an MCP endpoint scv connects to.
	URL               string            `toml:"url" json:"url,omitempty"`
	BearerTokenEnvVar string            `toml:"bearer_token_env_var" json:"bearerTokenEnvVar,omitempty"`
	HTTPHeaders       map[string]string `toml:"http_headers" json:"httpHeaders,omitempty"`

	Enabled           bool     `toml:"enabled" json:"enabled"`
	StartupTimeoutSec float64  `toml:"startup_timeout_sec" json:"startupTimeoutSec,omitempty"`
	ToolTimeoutSec    float64  `toml:"tool_timeout_sec" json:"toolTimeoutSec,omitempty"`
	EnabledTools      []string `toml:"enabled_tools" json:"enabledTools,omitempty"`
	DisabledTools     []string `toml:"disabled_tools" json:"disabledTools,omitempty"`
	// Trust skips asking before this server's tools run.
	Trust bool `toml:"trust" json:"trust,omitempty"`
}

// NewMCPServer returns a server table with every default applied, to
// decode a table into.
func NewMCPServer() MCPServer {
	return MCPServer{
		Enabled:           DefaultMCPEnabled,
		StartupTimeoutSec: DefaultMCPStartupTimeoutSec,
		ToolTimeoutSec:    DefaultMCPToolTimeoutSec,
	}
}

// Transport names how scv reaches the server.
func (s MCPServer) Transport() string {
	if s.URL != "" {
		return MCPTransportHTTP
	}
	return MCPTransportStdio
}

// applyMCPDefaults fills the keys a file's [mcp_servers.NAME] tables left
// out: TOML decodes each table into a zero value, not a default one.
func applyMCPDefaults(cfg *Config, meta toml.MetaData) {
	for name, s := range cfg.MCPServers {
		if !meta.IsDefined("mcp_servers", name) {
			continue
		}
		d := NewMCPServer()
		if !meta.IsDefined("mcp_servers", name, "enabled") {
			s.Enabled = d.Enabled
		}
		if !meta.IsDefined("mcp_servers", name, "startup_timeout_sec") {
			s.StartupTimeoutSec = d.StartupTimeoutSec
		}
		if !meta.IsDefined("mcp_servers", name, "tool_timeout_sec") {
			s.ToolTimeoutSec = d.ToolTimeoutSec
		}
		cfg.MCPServers[name] = s
	}
}

// ValidMCPServerName reports whether name may name a server: letters,
// digits, '_' and '-', without "__" and without '_' at either end. The
// model sees mcp__SERVER__TOOL; a server docs_ would read like server docs
// with a tool whose name starts with '_'.
func ValidMCPServerName(name string) bool {
	if name == "" || strings.Contains(name, "__") || strings.HasPrefix(name, "_") || strings.HasSuffix(name, "_") {
		return false
	}
	for _, r := range name {
		if !(r == '_' || r == '-' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			return false
		}
	}
	return true
}

// validateMCP reports every problem of one server table through bad.
func validateMCP(name string, s MCPServer, bad func(key, format string, args ...any)) {
	key := "mcp_servers." + name
	if !ValidMCPServerName(name) {
		bad(key, "server names may hold only letters, digits, '_' and '-' (no \"__\", and no '_' at the start or end)")
	}
	switch {
	case s.Command == "" && s.URL == "":
		bad(key, "needs command (a program speaking MCP on stdio) or url (a streamable HTTP endpoint)")
	case s.Command != "" && s.URL != "":
		bad(key, "sets both command and url; a server is either a program (command) or an endpoint (url)")
	}
	if s.URL != "" {
		if u, err := url.Parse(s.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad(key+".url", "must be an http:// or https:// URL with a host")
		}
		for _, k := range []struct {
			name string
			set  bool
		}{{"args", len(s.Args) > 0}, {"env", len(s.Env) > 0}, {"cwd", s.Cwd != ""}} {
			if k.set {
				bad(key+"."+k.name, "applies only to a command (stdio) server, not to a url")
			}
		}
	}
	if s.Command != "" {
		if s.BearerTokenEnvVar != "" {
			bad(key+".bearer_token_env_var", "applies only to a url (HTTP) server, not to a command")
		}
		if len(s.HTTPHeaders) > 0 {
			bad(key+".http_headers", "applies only to a url (HTTP) server, not to a command")
		}
	}
	if s.Cwd != "" && !filepath.IsAbs(s.Cwd) {
		bad(key+".cwd", "must be an absolute path, got %q", s.Cwd)
	}
	for env := range s.Env {
		if !isEnvName(env) {
			bad(key+".env", "%q is not an environment variable name", env)
		}
	}
	if s.BearerTokenEnvVar != "" && !isEnvName(s.BearerTokenEnvVar) {
		bad(key+".bearer_token_env_var", "must be the name of an environment variable (letters, digits, _), not the token itself")
	}
	for h := range s.HTTPHeaders {
		if h == "" || strings.ContainsAny(h, " \t\r\n:") {
			bad(key+".http_headers", "%q is not a valid header name", h)
		}
	}
	if s.StartupTimeoutSec <= 0 {
		bad(key+".startup_timeout_sec", "must be positive, got %v", s.StartupTimeoutSec)
	}
	if s.ToolTimeoutSec <= 0 {
		bad(key+".tool_timeout_sec", "must be positive, got %v", s.ToolTimeoutSec)
	}
	for _, list := range []struct {
		key   string
		names []string
	}{{"enabled_tools", s.EnabledTools}, {"disabled_tools", s.DisabledTools}} {
		if slices.Contains(list.names, "") {
			bad(key+"."+list.key, "holds an empty tool name")
		}
	}
}

// mcpServerNames returns the configured names in a stable order.
func (c Config) mcpServerNames() []string {
	names := make([]string, 0, len(c.MCPServers))
	for name := range c.MCPServers {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// errMCPInProject is the refusal of [mcp_servers] in a project file.
func errMCPInProject(path, userFile string) error {
	return fmt.Errorf("mcp_servers may not be set in a project file (%s): a repository must not choose programs scv runs on your machine; configure MCP servers in %s or at session start",
		path, userFile)
}
