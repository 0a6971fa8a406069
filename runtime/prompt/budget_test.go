package prompt

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// mkfifo makes a named pipe that nobody ever opens for writing: opening it
// for reading without O_NONBLOCK would wait forever.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestAgentsFifoIsSkipped(t *testing.T) {
	_, ws, _ := layout(t)
	mkfifo(t, filepath.Join(ws, AgentsFile))
	sys := build(t, Options{Workspace: ws})
	if len(sys.Notes) != 1 || !strings.Contains(sys.Notes[0], AgentsFile) || !strings.Contains(sys.Notes[0], "not a regular file") {
		t.Fatalf("notes = %q", sys.Notes)
	}
	if strings.Contains(sys.Text, "Project instructions") {
		t.Fatalf("text = %q", sys.Text)
	}
}

func TestSkillFifoIsSkipped(t *testing.T) {
	_, ws, home := layout(t)
	skillAt(t, filepath.Join(home, HomeSkillsDir), "good", "---\ndescription: fine\n---\n")
	dir := filepath.Join(ws, filepath.FromSlash(ProjectSkillsDir), "piped")
	write(t, filepath.Join(dir, "README"), "")
	mkfifo(t, filepath.Join(dir, SkillFile))
	sys := build(t, Options{Workspace: ws, Home: home, SkillsEnabled: true})
	if len(sys.Skills) != 1 || sys.Skills[0].Name != "good" {
		t.Fatalf("skills = %+v", sys.Skills)
	}
	if len(sys.Notes) != 1 || !strings.Contains(sys.Notes[0], "piped") || !strings.Contains(sys.Notes[0], "not a regular file") {
		t.Fatalf("notes = %q", sys.Notes)
	}
}

// The system prompt is sent with every request: AGENTS.md is cut so the
// whole prompt fits its budget, whatever tools.max_read_bytes allows.
func TestAgentsCutToTheSystemPromptBudget(t *testing.T) {
	_, ws, _ := layout(t)
	write(t, filepath.Join(ws, AgentsFile), strings.Repeat("instructions ", 10_000))
	const budget = 2000
	sys := build(t, Options{Workspace: ws, Configured: "Be brief.", MaxReadBytes: 1 << 20, MaxBytes: budget})
	if len(sys.Text) > budget {
		t.Fatalf("system prompt of %d bytes exceeds its budget of %d", len(sys.Text), budget)
	}
	if !strings.Contains(sys.Text, "Be brief.") || !strings.Contains(sys.Text, "instructions instructions") ||
		!strings.Contains(sys.Text, "truncated") {
		t.Fatalf("text = %q", sys.Text)
	}
	if len(sys.Notes) != 1 || !strings.Contains(sys.Notes[0], "context.max_tokens") {
		t.Fatalf("notes = %q", sys.Notes)
	}
}

// What cannot be cut (the configured prompt) must fit on its own.
func TestSystemPromptOverBudgetIsAnError(t *testing.T) {
	_, ws, _ := layout(t)
	_, err := Build(Options{Workspace: ws, Configured: strings.Repeat("x", 3000), MaxReadBytes: 1 << 20, MaxBytes: 2000})
	if err == nil || !strings.Contains(err.Error(), "2000") {
		t.Fatalf("error = %v", err)
	}
}

func TestSkillsDirFifoIsSkipped(t *testing.T) {
	_, ws, home := layout(t)
	write(t, filepath.Join(ws, ".scv", "config.toml"), "")
	mkfifo(t, filepath.Join(ws, filepath.FromSlash(ProjectSkillsDir)))
	sys := build(t, Options{Workspace: ws, Home: home, SkillsEnabled: true})
	if len(sys.Skills) != 0 || len(sys.Notes) != 1 || !strings.Contains(sys.Notes[0], "not a directory") {
		t.Fatalf("skills %+v, notes = %q", sys.Skills, sys.Notes)
	}
}
