package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Permission of the file Init creates: it may hold an API key.
const fileMode = 0o600

// Template returns a config.toml in which every key appears, commented out,
// with its default value and what it does.
func Template() string {
	var b strings.Builder
	w := func(lines ...string) {
		for _, l := range lines {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	kv := func(help, key string, value any) {
		w("# "+help, "# "+key+" = "+tomlValue(value))
	}
	d := Defaults()

	w("# scv configuration. Every key is shown with its default, commented out:",
		"# uncomment a line to change it.",
		"#",
		"# Precedence, lowest first: built-in defaults, this file ("+filepath.Join("$"+HomeEnv, FileName)+",",
		"# $"+HomeEnv+" defaulting to ~/"+DefaultHomeDir+"), the workspace's "+filepath.Join(ProjectDir, FileName)+", session",
		"# parameters from the editor, command-line flags.",
		"# A workspace's file may only make scv stricter than this file: it may not set",
		"# provider.kind, base_url, api_key, api_key_env, headers or replay_script,",
		"# tools.shell.env_allow, nor anything in [protocol] or [daemon]; it may lower a",
		"# limit but not raise it, switch tools or skills off but not on, add to",
		"# tools.shell.env_deny, and choose an approval_policy only if it is at least as",
		"# strict as yours (on-risk < always, on-risk < never).",
		"")

	w("[provider]",
		"# Examples (replace the matching keys below):",
		"#   OpenAI (the default): export OPENAI_API_KEY=... and change nothing.",
		"#   Ollama on this machine (no key needed):",
		"#     base_url = \"http://localhost:11434/v1\"",
		"#     model = \"qwen2.5-coder:7b\"",
		"#   vLLM (`vllm serve <model>`; add --api-key and api_key_env if you protect it):",
		"#     base_url = \"http://localhost:8000/v1\"",
		"#     model = \"Qwen/Qwen2.5-Coder-7B-Instruct\"",
		"#   Replay (scripted answers, no network; for demos and tests):",
		"#     kind = \"replay\"",
		"#     replay_script = \"my-script\"  # a path; empty plays the built-in demo",
		"#")
	kv("Which API to talk to: \"openai\" (any OpenAI-compatible endpoint) or \"replay\".", "kind", d.Provider.Kind)
	kv("Endpoint of the OpenAI-compatible API; a localhost URL needs no key.", "base_url", d.Provider.BaseURL)
	kv("Model name sent with every request.", "model", d.Provider.Model)
	kv("More model ids a model picker offers besides model (the endpoint's own /models list is added when it answers).", "models", []string{})
	kv("Name of the environment variable holding the API key (the name, not the key).", "api_key_env", d.Provider.APIKeyEnv)
	kv("The API key itself; prefer api_key_env, and keep this file mode 600 if you use it.", "api_key", d.Provider.APIKey)
	kv("Extra HTTP headers sent with every request, e.g. { \"OpenAI-Organization\" = \"org-...\" }.", "headers", map[string]string{})
	kv("Seconds to wait for one model request before giving up.", "timeout_seconds", d.Provider.TimeoutSeconds)
	kv("Retries of a failed model request (rate limits, 5xx, network errors).", "max_retries", d.Provider.MaxRetries)
	kv("Replay provider's script (a regular file, of bounded size), relative to this file; empty plays the built-in demo.", "replay_script", d.Provider.ReplayScript)
	kv("Bytes of one model response (text and tool calls) before scv stops reading it and fails the turn (response_limit).", "max_response_bytes", d.Provider.MaxResponseBytes)
	kv("Bytes of one tool call's arguments before scv stops reading the response and fails the turn (response_limit).", "max_tool_call_bytes", d.Provider.MaxToolCallBytes)
	w("")

	w("[agent]")
	kv("Model calls allowed in one turn before it stops with max_steps.", "max_steps", d.Agent.MaxSteps)
	kv("When to ask before a tool runs: never (deny risky tools), on-risk, always, auto (never ask).", "approval_policy", d.Agent.ApprovalPolicy)
	kv("Instructions opening every conversation; the workspace's AGENTS.md is added after them.", "system_prompt", d.Agent.SystemPrompt)
	w("")

	w("[tools]")
	kv("Offer tools to the model; false makes a chat-only session.", "enabled", d.Tools.Enabled)
	kv("Bytes a file read (and AGENTS.md, and a skill) returns at most.", "max_read_bytes", d.Tools.MaxReadBytes)
	kv("Bytes of command output returned to the model (and shown live while it runs) at most.", "max_output_bytes", d.Tools.MaxOutputBytes)
	kv("Seconds a shell command may run before it is killed.", "shell_timeout_seconds", d.Tools.ShellTimeoutSeconds)
	kv("Matches a grep returns at most.", "max_grep_matches", d.Tools.MaxGrepMatches)
	w("")

	w("[tools.shell]",
		"# A shell command sees scv's environment minus the provider's key (its variable,",
		"# and any variable holding the same value), names that look secret (*API_KEY*,",
		"# *TOKEN*, *SECRET*, *PASSWORD*, *_KEY, *_KEY_ID, ...) and URLs with a password.")
	kv("Names or globs of hidden variables to pass anyway (never the provider's key); not in a workspace's file.", "env_allow", d.Tools.Shell.EnvAllow)
	kv("Names or globs of further variables to hide; a workspace's list adds to this one.", "env_deny", d.Tools.Shell.EnvDeny)
	w("")

	w("[context]")
	kv("Token budget of what is sent to the model (set it to the model's context window; editors show \"ctx %\" against it); the system prompt (with AGENTS.md) may take half of it.", "max_tokens", d.Context.MaxTokens)
	w("")

	w("[protocol]")
	kv("Largest frame accepted from an editor, in bytes.", "max_client_frame_bytes", d.Protocol.MaxClientFrameBytes)
	kv("Largest frame sent to an editor, in bytes.", "max_server_frame_bytes", d.Protocol.MaxServerFrameBytes)
	kv("Bytes queued for a slow editor before it is told it lagged.", "outbound_queue_bytes", d.Protocol.OutboundQueueBytes)
	kv("Requests one connection may have in flight at once.", "max_inflight_requests", d.Protocol.MaxInflightRequests)
	kv("Bytes all connections of one process may have queued for their editors together, replies included.", "max_process_outbound_bytes", d.Protocol.MaxProcessOutboundBytes)
	w("")

	w("[skills]")
	kv("List skills (.scv/skills/*/SKILL.md in the workspace, skills/*/SKILL.md in $"+HomeEnv+") to the model.", "enabled", d.Skills.Enabled)
	w("")

	w("[daemon]")
	kv("Minutes a session with no attached editor lives before the daemon closes it.", "session_idle_minutes", d.Daemon.SessionIdleMinutes)
	kv("Sessions open at once, in the daemon or in one `scv lsp`; more are refused with too_many_sessions.", "max_sessions", d.Daemon.MaxSessions)
	w("")

	w("[sessions]")
	kv("Stored sessions ($"+HomeEnv+"/sessions) kept; the daemon removes the oldest beyond it, at start and daily.", "max_count", d.Sessions.MaxCount)
	kv("Days a stored session is kept after its last change.", "max_age_days", d.Sessions.MaxAgeDays)
	kv("Bytes one session's file may hold (at most the default, what a load accepts); the turn during which it passes 80 % says so, and from then on the session takes no new prompt (session_too_large): start a new session, or fork an earlier turn.", "max_log_bytes", d.Sessions.MaxLogBytes)
	w("")

	w("[approvals]")
	kv("Tool calls that run without asking, in every session: \"shell:go test *\" (a command's first words; \"*\" allows more arguments; a command with shell syntax such as ; && | $( ) > never matches), \"edit:docs/**\" (files write_file and edit_file may change, as workspace globs). Only this file may hold rules; \"Always allow\" in an approval prompt adds one here. A rule that appears here while a tool call runs waits for your confirmation in an approval prompt.", "allow", d.Approvals.Allow)
	w("")

	w("[checkpoints]")
	kv("Snapshot the workspace ($"+HomeEnv+"/checkpoints, never your repository) before a turn's first change, so the turn can be reviewed and undone.", "enabled", d.Checkpoints.Enabled)
	kv("Bytes every session's checkpoints may take together; the oldest sessions' are dropped first.", "max_bytes", d.Checkpoints.MaxBytes)
	d0 := NewMCPServer()
	w("# MCP servers whose tools the model may use, one [mcp_servers.NAME] table each",
		"# (NAME: letters, digits, _ and -). The keys are Codex's. Only this file (or the",
		"# editor at session start) may configure them, never a workspace's file.",
		"# Each session starts its own process per stdio server; its stderr goes to",
		"# $"+HomeEnv+"/logs/mcp-NAME.log. `scv mcp list --check` tries every one.",
		"# The model sees a tool as mcp__NAME__TOOL; every call is asked under on-risk.",
		"#",
		"# [mcp_servers.files]                  # a program speaking MCP on stdio",
		"#   command = \"npx\"",
		"#   args = [\"-y\", \"@modelcontextprotocol/server-filesystem\", \"/home/me/notes\"]",
		"#   env = { LOG_LEVEL = \"warn\" }     # added to your environment minus secrets",
		"#   cwd = \"/home/me\"                 # absolute; default: the session's workspace",
		"#",
		"# [mcp_servers.tracker]                # a streamable HTTP endpoint",
		"#   url = \"https://mcp.example.com/mcp\"",
		"#   bearer_token_env_var = \"TRACKER_TOKEN\"  # sent as Authorization: Bearer",
		"#   http_headers = { \"X-Team\" = \"core\" }",
		"#",
		"# Keys every server takes, with their defaults:",
		"#   enabled = "+tomlValue(d0.Enabled)+"                      # false keeps it configured but not started",
		"#   startup_timeout_sec = "+tomlValue(int(d0.StartupTimeoutSec))+"            # handshake and tool list, else failed",
		"#   tool_timeout_sec = "+tomlValue(int(d0.ToolTimeoutSec))+"               # one call, then it is cancelled",
		"#   enabled_tools = [\"read_file\"]      # only these tools (default: all)",
		"#   disabled_tools = [\"write_file\"]    # never these",
		"#   trust = false                       # true: never ask before its tools run")
	return b.String()
}

// tomlValue renders the value types Config uses as TOML.
func tomlValue(v any) string {
	switch v := v.(type) {
	case string:
		return tomlString(v)
	case int:
		return strconv.Itoa(v)
	case bool:
		return strconv.FormatBool(v)
	case []string:
		parts := make([]string, len(v))
		for i, s := range v {
			parts[i] = tomlString(s)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]string:
		if len(v) == 0 {
			return "{}"
		}
		parts := make([]string, 0, len(v))
		for k, val := range v {
			parts = append(parts, tomlString(k)+" = "+tomlString(val))
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	}
	panic(fmt.Sprintf("tomlValue: unsupported type %T", v))
}

// tomlString quotes s as a one-line TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Init writes Template to <home>/config.toml, creating home (or tightening
// it) as SecureHome does. It never overwrites an existing file.
func Init(home string) (string, error) {
	if home == "" {
		return "", errors.New("init config: empty home directory")
	}
	if err := SecureHome(home); err != nil {
		return "", fmt.Errorf("init config: %w", err)
	}
	path := UserFile(home)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fileMode)
	if errors.Is(err, fs.ErrExist) {
		return path, fmt.Errorf("init config: %s already exists; edit it, or move it away and run init again", path)
	}
	if err != nil {
		return "", fmt.Errorf("init config: %w", err)
	}
	_, werr := f.WriteString(Template())
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		// A half-written file would block the next Init; remove it.
		os.Remove(path)
		return "", fmt.Errorf("init config: write %s: %w", path, werr)
	}
	return path, nil
}
