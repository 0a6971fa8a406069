// Package prompt assembles a session's system prompt: the configured
// instructions, the working directory, the workspace's AGENTS.md and the
// list of available skills; and offers the read_skill tool that loads one.
package prompt

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// AgentsFile is the workspace file whose contents join the system prompt.
const AgentsFile = "AGENTS.md"

// Options says what goes into a session's system prompt.
type Options struct {
	// Workspace is the session's root: absolute, symlinks resolved.
	Workspace string
	// Configured is agent.system_prompt.
	Configured string
	// MaxReadBytes bounds AGENTS.md (tools.max_read_bytes).
	MaxReadBytes int
	// SkillsEnabled lists skills; callers pass false when the session has no
	// tools, since read_skill could not be called.
	SkillsEnabled bool
	// PlanTool tells the model when to use the update_plan tool; callers
	// pass true when the session offers it.
	PlanTool bool
	// Home is scv's home directory, holding the user's skills/.
	Home string
	// MaxBytes bounds the whole prompt, which is sent with every request:
	// AGENTS.md is cut to fit, and a prompt that does not fit without it is
	// an error. The session derives it from context.max_tokens; 0 is no
	// bound.
	MaxBytes int
}

// ErrOverBudget is wrapped by Build's error when the prompt does not fit
// Options.MaxBytes even without AGENTS.md.
var ErrOverBudget = errors.New("the system prompt does not fit its budget")

// planGuidance tells the model when to keep a plan with update_plan.
const planGuidance = "\nFor a task that takes several steps (say three or more, or several files), call update_plan " +
	"first with the steps you intend, then again whenever a step starts or is done, so the user can follow your progress. " +
	"Skip it for a simple question or a one-step change.\n"

// agentsFraming bounds what agentsSection adds around AGENTS.md's text
// (heading, final newline, truncation marker).
const agentsFraming = 160

// System is an assembled system prompt.
type System struct {
	Text string
	// Skills are the skills listed in Text, sorted by name.
	Skills []Skill
	// Notes explain what was left out or cut short, for status reports.
	Notes []string
}

// Build assembles the system prompt. Only unusable options are errors; a
// refused AGENTS.md or skill becomes a Note.
func Build(opts Options) (System, error) {
	if !filepath.IsAbs(opts.Workspace) {
		return System{}, fmt.Errorf("build system prompt: workspace %q is not an absolute path", opts.Workspace)
	}
	if opts.MaxReadBytes <= 0 {
		return System{}, fmt.Errorf("build system prompt: max read bytes must be positive, got %d", opts.MaxReadBytes)
	}
	// Resolved again so that comparisons hold even if the caller's path
	// still goes through a symlink (/tmp on macOS).
	ws, err := filepath.EvalSymlinks(opts.Workspace)
	if err != nil {
		return System{}, fmt.Errorf("build system prompt: resolve workspace: %w", err)
	}
	if info, err := os.Stat(ws); err != nil {
		return System{}, fmt.Errorf("build system prompt: %w", err)
	} else if !info.IsDir() {
		return System{}, fmt.Errorf("build system prompt: workspace %s is not a directory", opts.Workspace)
	}

	var sys System
	var head strings.Builder
	if c := strings.TrimSpace(opts.Configured); c != "" {
		head.WriteString(c)
		head.WriteString("\n\n")
	}
	fmt.Fprintf(&head, "Working directory: %s\n", opts.Workspace)
	if opts.PlanTool {
		head.WriteString(planGuidance)
	}

	var skills string
	if opts.SkillsEnabled {
		found, notes := discoverSkills(ws, opts.Home)
		sys.Skills = found
		sys.Notes = append(sys.Notes, notes...)
		skills = skillsSection(found)
	}

	// AGENTS.md gets what the rest leaves of the budget.
	agentsMax, budgetNote := opts.MaxReadBytes, "tools.max_read_bytes"
	if opts.MaxBytes > 0 {
		fixed := head.Len() + len(skills)
		if fixed > opts.MaxBytes {
			return System{}, fmt.Errorf("build system prompt: %w: the configured prompt, working directory and skills list take %d bytes, more than its %d bytes",
				ErrOverBudget, fixed, opts.MaxBytes)
		}
		if left := opts.MaxBytes - fixed - agentsFraming; left < agentsMax {
			agentsMax, budgetNote = left, "to fit the system prompt's share of context.max_tokens"
		}
	}
	agents, note := agentsSection(ws, agentsMax, budgetNote)
	if note != "" {
		sys.Notes = append(sys.Notes, note)
	}
	sys.Text = head.String() + agents + skills
	return sys, nil
}

// agentsSection returns the AGENTS.md part of the prompt, at most maxBytes
// of the file, and a note when the file was refused or cut; limit names
// what set maxBytes.
func agentsSection(ws string, maxBytes int, limit string) (text, note string) {
	path := filepath.Join(ws, AgentsFile)
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return "", ""
	} else if err != nil {
		return "", fmt.Sprintf("%s not included: %v", AgentsFile, err)
	}
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Sprintf("%s not included: cannot resolve it: %v", AgentsFile, errorText(err))
	}
	if !inside(resolved, ws) {
		return "", fmt.Sprintf("%s not included: it resolves to %s, outside the workspace", AgentsFile, resolved)
	}
	rel, err := filepath.Rel(ws, resolved)
	if err != nil {
		return "", fmt.Sprintf("%s not included: %v", AgentsFile, err)
	}
	if maxBytes <= 0 {
		return "", fmt.Sprintf("%s not included: no room is left for it (%s)", AgentsFile, limit)
	}
	content, truncated, err := readInRoot(ws, rel, maxBytes)
	if err != nil {
		return "", fmt.Sprintf("%s not included: %v", AgentsFile, errorText(err))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n# Project instructions (%s)\n\n", AgentsFile)
	b.WriteString(content)
	if !strings.HasSuffix(content, "\n") {
		b.WriteByte('\n')
	}
	if truncated {
		fmt.Fprintf(&b, "[%s truncated: only its first %d bytes are shown]\n", AgentsFile, maxBytes)
		note = fmt.Sprintf("%s truncated to its first %d bytes (%s)", AgentsFile, maxBytes, limit)
	}
	return b.String(), note
}

// errorText is err's message without the path prefix fs errors carry, for
// notes that already name the file.
func errorText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
