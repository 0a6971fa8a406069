package config

import (
	"scv/runtime/provider"
	"scv/runtime/store"
)

// Default values of every key. Template and Defaults are both built from
// these, so the commented file users get cannot drift from the code.
const (
	DefaultProviderKind           = KindOpenAI
	DefaultBaseURL                = "https://api.openai.com/v1"
	DefaultModel                  = "gpt-4o-mini"
	DefaultAPIKeyEnv              = "OPENAI_API_KEY"
	DefaultProviderTimeoutSeconds = 120
	DefaultMaxRetries             = 2
	DefaultMaxResponseBytes       = provider.DefaultMaxResponseBytes
	DefaultMaxToolCallBytes       = provider.DefaultMaxToolCallBytes

	DefaultMaxSteps       = 25
	DefaultApprovalPolicy = PolicyOnRisk
	DefaultSystemPrompt   = "You are scv, a coding agent working in the user's workspace on their behalf, driven from their editor.\n" +
		"Read the relevant code before changing it, and use the tools to inspect files instead of guessing their contents.\n" +
		"Keep changes small and focused on the request; follow the project's existing conventions, build and test commands.\n" +
		"After a change, run the relevant checks when you can and report the outcome honestly, including failures.\n" +
		"If a request is ambiguous or a step is risky or destructive, explain what you intend and ask first.\n" +
		"Be concise: say what you changed and why, and reference files by path."

	DefaultToolsEnabled        = true
	DefaultMaxReadBytes        = 256 * 1024
	DefaultMaxOutputBytes      = 64 * 1024
	DefaultShellTimeoutSeconds = 120
	DefaultMaxGrepMatches      = 200

	DefaultContextMaxTokens = 128000

	DefaultMaxClientFrameBytes = 8 * 1024 * 1024
	DefaultMaxServerFrameBytes = 8 * 1024 * 1024
	DefaultOutboundQueueBytes  = 32 * 1024 * 1024
	DefaultMaxInflightRequests = 32
	// DefaultMaxProcessOutboundBytes is what every connection of one
	// process may have queued for its clients at once: four connections'
	// full outbound queues.
	DefaultMaxProcessOutboundBytes = 4 * DefaultOutboundQueueBytes

	DefaultSkillsEnabled = true

	DefaultSessionIdleMinutes = 30
	DefaultMaxSessions        = 256

	DefaultSessionsMaxCount   = 1000
	DefaultSessionsMaxAgeDays = 90
	// DefaultSessionsMaxLogBytes is the largest session file a load accepts.
	DefaultSessionsMaxLogBytes = store.MaxLogBytes

	DefaultCheckpointsEnabled  = true
	DefaultCheckpointsMaxBytes = 512 << 20
)

// Provider kinds.
const (
	KindOpenAI = "openai" // any OpenAI-compatible chat completions endpoint
	KindReplay = "replay" // scripted answers, for demos and tests
)

// Approval policies (see the protocol's approval table).
const (
	PolicyNever  = "never"
	PolicyOnRisk = "on-risk"
	PolicyAlways = "always"
	PolicyAuto   = "auto"
)

// Kinds returns the accepted provider kinds, in the order messages show them.
func Kinds() []string { return []string{KindOpenAI, KindReplay} }

// Policies returns the accepted approval policies, in the order messages
// show them.
func Policies() []string { return []string{PolicyNever, PolicyOnRisk, PolicyAlways, PolicyAuto} }

// Defaults returns the configuration used when no file sets anything.
func Defaults() Config {
	return Config{
		Provider: Provider{
			Kind:           DefaultProviderKind,
			BaseURL:        DefaultBaseURL,
			Model:          DefaultModel,
			Models:         []string{},
			APIKeyEnv:      DefaultAPIKeyEnv,
			TimeoutSeconds: DefaultProviderTimeoutSeconds,
			MaxRetries:     DefaultMaxRetries,

			MaxResponseBytes: DefaultMaxResponseBytes,
			MaxToolCallBytes: DefaultMaxToolCallBytes,
		},
		Agent: Agent{
			MaxSteps:       DefaultMaxSteps,
			ApprovalPolicy: DefaultApprovalPolicy,
			SystemPrompt:   DefaultSystemPrompt,
		},
		Tools: Tools{
			Enabled:             DefaultToolsEnabled,
			MaxReadBytes:        DefaultMaxReadBytes,
			MaxOutputBytes:      DefaultMaxOutputBytes,
			ShellTimeoutSeconds: DefaultShellTimeoutSeconds,
			MaxGrepMatches:      DefaultMaxGrepMatches,
			Shell:               Shell{EnvAllow: []string{}, EnvDeny: []string{}},
		},
		Context: Context{MaxTokens: DefaultContextMaxTokens},
		Protocol: Protocol{
			MaxClientFrameBytes:     DefaultMaxClientFrameBytes,
			MaxServerFrameBytes:     DefaultMaxServerFrameBytes,
			OutboundQueueBytes:      DefaultOutboundQueueBytes,
			MaxInflightRequests:     DefaultMaxInflightRequests,
			MaxProcessOutboundBytes: DefaultMaxProcessOutboundBytes,
		},
		Skills:      Skills{Enabled: DefaultSkillsEnabled},
		Daemon:      Daemon{SessionIdleMinutes: DefaultSessionIdleMinutes, MaxSessions: DefaultMaxSessions},
		Sessions:    Sessions{MaxCount: DefaultSessionsMaxCount, MaxAgeDays: DefaultSessionsMaxAgeDays, MaxLogBytes: DefaultSessionsMaxLogBytes},
		Checkpoints: Checkpoints{Enabled: DefaultCheckpointsEnabled, MaxBytes: DefaultCheckpointsMaxBytes},
		Approvals:   Approvals{Allow: []string{}},
	}
}

// WithDefaults returns p with every unset (zero or negative) limit replaced
// by its default, for servers built without a loaded configuration.
func (p Protocol) WithDefaults() Protocol {
	d := Defaults().Protocol
	if p.MaxClientFrameBytes <= 0 {
		p.MaxClientFrameBytes = d.MaxClientFrameBytes
	}
	if p.MaxServerFrameBytes <= 0 {
		p.MaxServerFrameBytes = d.MaxServerFrameBytes
	}
	if p.OutboundQueueBytes <= 0 {
		p.OutboundQueueBytes = d.OutboundQueueBytes
	}
	if p.MaxInflightRequests <= 0 {
		p.MaxInflightRequests = d.MaxInflightRequests
	}
	if p.MaxProcessOutboundBytes <= 0 {
		p.MaxProcessOutboundBytes = d.MaxProcessOutboundBytes
	}
	return p
}
