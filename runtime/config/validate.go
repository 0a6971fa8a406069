package config

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"

	"scv/runtime/approvals"
	"scv/runtime/store"
)

// isEnvName reports whether s looks like an environment variable name;
// anything else in api_key_env is most likely the key itself pasted in the
// wrong place.
func isEnvName(s string) bool {
	for i, r := range s {
		switch {
		case r == '_', 'A' <= r && r <= 'Z', 'a' <= r && r <= 'z':
		case '0' <= r && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return s != ""
}

// Validate checks every value; the error names each bad key.
func (c Config) Validate() error { return c.validate(nil) }

// validate collects every problem; origin, when given, adds where a bad
// value came from. Secrets and URLs (which may hold credentials) are never
// echoed.
func (c Config) validate(origin func(string) string) error {
	var errs []error
	bad := func(key, format string, args ...any) {
		msg := key + ": " + fmt.Sprintf(format, args...)
		if origin != nil {
			if o := origin(key); o != OriginDefault {
				msg += " (set in " + o + ")"
			}
		}
		errs = append(errs, errors.New(msg))
	}
	oneOf := func(key, v string, allowed []string) {
		if !slices.Contains(allowed, v) {
			bad(key, "%q is not one of %s", v, strings.Join(allowed, ", "))
		}
	}
	positive := func(key string, v int) {
		if v <= 0 {
			bad(key, "must be positive, got %d", v)
		}
	}

	p := c.Provider
	oneOf("provider.kind", p.Kind, Kinds())
	if p.Kind == KindOpenAI {
		if strings.TrimSpace(p.Model) == "" {
			bad("provider.model", "must not be empty")
		}
		if u, err := url.Parse(p.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("provider.base_url", "must be an http:// or https:// URL with a host, such as %q", DefaultBaseURL)
		}
	}
	for _, m := range p.Models {
		if strings.TrimSpace(m) == "" || strings.TrimSpace(m) != m {
			bad("provider.models", "%q is not a model id", m)
		}
	}
	if p.APIKeyEnv != "" && !isEnvName(p.APIKeyEnv) {
		bad("provider.api_key_env", "must be the name of an environment variable (letters, digits, _), not the key itself")
	}
	for name := range p.Headers {
		if name == "" || strings.ContainsAny(name, " \t\r\n:") {
			bad("provider.headers", "%q is not a valid header name", name)
		}
	}
	positive("provider.timeout_seconds", p.TimeoutSeconds)
	if p.MaxRetries < 0 {
		bad("provider.max_retries", "must not be negative, got %d", p.MaxRetries)
	}
	positive("provider.max_response_bytes", p.MaxResponseBytes)
	positive("provider.max_tool_call_bytes", p.MaxToolCallBytes)
	if p.MaxToolCallBytes > p.MaxResponseBytes {
		bad("provider.max_tool_call_bytes", "must not exceed provider.max_response_bytes (%d), got %d", p.MaxResponseBytes, p.MaxToolCallBytes)
	}

	positive("agent.max_steps", c.Agent.MaxSteps)
	oneOf("agent.approval_policy", c.Agent.ApprovalPolicy, Policies())

	positive("tools.max_read_bytes", c.Tools.MaxReadBytes)
	positive("tools.max_output_bytes", c.Tools.MaxOutputBytes)
	positive("tools.shell_timeout_seconds", c.Tools.ShellTimeoutSeconds)
	positive("tools.max_grep_matches", c.Tools.MaxGrepMatches)
	envPatterns := func(key string, patterns []string) {
		for _, p := range patterns {
			if _, err := path.Match(p, ""); err != nil || p == "" {
				bad(key, "%q is not a variable name or glob pattern", p)
			}
		}
	}
	envPatterns("tools.shell.env_allow", c.Tools.Shell.EnvAllow)
	envPatterns("tools.shell.env_deny", c.Tools.Shell.EnvDeny)

	positive("context.max_tokens", c.Context.MaxTokens)

	positive("protocol.max_client_frame_bytes", c.Protocol.MaxClientFrameBytes)
	positive("protocol.max_server_frame_bytes", c.Protocol.MaxServerFrameBytes)
	positive("protocol.outbound_queue_bytes", c.Protocol.OutboundQueueBytes)
	positive("protocol.max_inflight_requests", c.Protocol.MaxInflightRequests)
	positive("protocol.max_process_outbound_bytes", c.Protocol.MaxProcessOutboundBytes)
	if c.Protocol.MaxProcessOutboundBytes < c.Protocol.OutboundQueueBytes {
		bad("protocol.max_process_outbound_bytes", "must hold at least one connection's protocol.outbound_queue_bytes (%d), got %d",
			c.Protocol.OutboundQueueBytes, c.Protocol.MaxProcessOutboundBytes)
	}
	if c.Protocol.OutboundQueueBytes < c.Protocol.MaxServerFrameBytes {
		bad("protocol.outbound_queue_bytes", "must hold at least one frame of protocol.max_server_frame_bytes (%d), got %d",
			c.Protocol.MaxServerFrameBytes, c.Protocol.OutboundQueueBytes)
	}

	positive("daemon.session_idle_minutes", c.Daemon.SessionIdleMinutes)
	positive("daemon.max_sessions", c.Daemon.MaxSessions)

	for _, name := range c.mcpServerNames() {
		validateMCP(name, c.MCPServers[name], bad)
	}
	for _, rule := range c.Approvals.Allow {
		if _, err := approvals.Parse(rule); err != nil {
			bad("approvals.allow", "%v", err)
		}
	}
	positive("sessions.max_count", c.Sessions.MaxCount)
	positive("sessions.max_age_days", c.Sessions.MaxAgeDays)
	positive("sessions.max_log_bytes", c.Sessions.MaxLogBytes)
	if c.Sessions.MaxLogBytes > store.MaxLogBytes {
		bad("sessions.max_log_bytes", "must be at most %d (the largest session file a load accepts), got %d", store.MaxLogBytes, c.Sessions.MaxLogBytes)
	}
	positive("checkpoints.max_bytes", c.Checkpoints.MaxBytes)
	return errors.Join(errs...)
}
