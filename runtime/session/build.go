package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"scv/runtime/ceiling"
	"scv/runtime/config"
	"scv/runtime/prompt"
	"scv/runtime/tools"
)

// How a Manager builds a session from its config, the same for a start
// and for a load: its workspace, provider, system prompt and tools.

func checkCwd(cwd string) (string, error) {
	if cwd == "" || !filepath.IsAbs(cwd) {
		return "", errorf(CodeInvalidCwd, "cwd must be an absolute directory path, got %q", cwd)
	}
	info, err := os.Stat(cwd)
	if err != nil {
		return "", errorf(CodeInvalidCwd, "cwd %s: %v", cwd, errors.Unwrap(err))
	}
	if !info.IsDir() {
		return "", errorf(CodeInvalidCwd, "cwd %s is not a directory", cwd)
	}
	resolved, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		return "", errorf(CodeInvalidCwd, "cwd %s: %v", cwd, err)
	}
	return resolved, nil
}

func (m *Manager) build(id string, createdAt time.Time, cwd string, cfg config.Config, ceil ceiling.Ceiling) (*Session, error) {
	prov, err := m.newProvider(cfg)
	if err != nil {
		return nil, err
	}
	ws, err := tools.NewWorkspace(cwd)
	if err != nil {
		return nil, errorf(CodeInvalidCwd, "%v", err)
	}
	sys, err := prompt.Build(prompt.Options{
		Workspace:     ws.Root(),
		Configured:    cfg.Agent.SystemPrompt,
		MaxReadBytes:  cfg.Tools.MaxReadBytes,
		SkillsEnabled: cfg.Skills.Enabled && cfg.Tools.Enabled, // read_skill is a tool
		PlanTool:      cfg.Tools.Enabled,
		Home:          m.opts.Home,
		MaxBytes:      systemPromptBytes(cfg.Context.MaxTokens),
	})
	if err != nil {
		if errors.Is(err, prompt.ErrOverBudget) {
			return nil, errorf(CodeInvalidParams, "%v: the system prompt may take 1/%d of context.max_tokens (%d)", err, systemPromptShare, cfg.Context.MaxTokens)
		}
		return nil, fmt.Errorf("build system prompt: %w", err)
	}
	// Without tools the registry is empty rather than nil: a model may
	// still call a tool, and that call is answered "unknown tool".
	registry := tools.NewRegistry()
	if cfg.Tools.Enabled {
		all := tools.Builtin(ws, tools.Limits{
			MaxReadBytes:   cfg.Tools.MaxReadBytes,
			MaxOutputBytes: cfg.Tools.MaxOutputBytes,
			ShellTimeout:   time.Duration(cfg.Tools.ShellTimeoutSeconds) * time.Second,
			MaxGrepMatches: cfg.Tools.MaxGrepMatches,
		}, m.shellEnvFor(cfg))
		if len(sys.Skills) > 0 {
			all = append(all, prompt.NewReadSkillTool(sys.Skills, cfg.Tools.MaxReadBytes))
		}
		all = append(all, planTool{})
		registry = tools.NewRegistry(all...)
	}
	limits := m.opts.Limits.WithResponse(ResponseLimits(cfg))
	limits.MaxServerFrameBytes = cfg.Protocol.MaxServerFrameBytes
	ctx, cancel := context.WithCancel(context.Background())
	s := &Session{
		id:               id,
		cwd:              ws.Root(),
		home:             m.opts.Home,
		rules:            m.rules,
		model:            cfg.Provider.Model,
		configuredModels: cfg.Provider.Models,
		modelCache:       m.models,
		createdAt:        createdAt,
		now:              m.opts.Now,
		cfg:              cfg,
		ceiling:          ceil,
		limits:           limits,
		provider:         prov,
		registry:         registry,
		workspace:        ws,
		system:           sys.Text,
		skills:           sys.Skills,
		log:              m.opts.Log,
		ctx:              ctx,
		cancel:           cancel,
		subs:             map[Subscriber]struct{}{},
		sessionApproved:  map[string]bool{},
		closeDone:        make(chan struct{}),
		onClosed:         m.opts.OnClosed,
	}
	if cfg.Provider.Kind == "replay" {
		s.model = "replay"
	}
	s.ckpt.root, s.limits.MaxCheckpointBytes = m.checkpointRoot(cfg)
	s.ckpt.work, s.ckpt.stopWork = context.WithCancel(context.Background())
	return s, nil
}
