package prompt

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"scv/runtime/tools"
)

const (
	// ReadSkillToolName is the tool the skills section tells the model to call.
	ReadSkillToolName = "read_skill"
	// DefaultSkillReadBytes stands in for a non-positive maxBytes.
	DefaultSkillReadBytes = 256 * 1024
)

const readSkillSchema = `{"type":"object","properties":{"name":{"type":"string","description":"The skill's name, as listed in the system prompt."}},"required":["name"],"additionalProperties":false}`

type readSkillTool struct {
	skills   map[string]Skill
	names    []string
	maxBytes int
}

// NewReadSkillTool returns the tool that loads a listed skill's SKILL.md,
// at most maxBytes of it.
func NewReadSkillTool(skills []Skill, maxBytes int) tools.Tool {
	if maxBytes <= 0 {
		maxBytes = DefaultSkillReadBytes
	}
	t := &readSkillTool{skills: make(map[string]Skill, len(skills)), maxBytes: maxBytes}
	for _, s := range skills {
		t.skills[s.Name] = s
		t.names = append(t.names, s.Name)
	}
	sort.Strings(t.names)
	return t
}

func (t *readSkillTool) Name() string { return ReadSkillToolName }

func (t *readSkillTool) Description() string {
	return "Load the full instructions of a skill listed in the system prompt, by name."
}

func (t *readSkillTool) Parameters() json.RawMessage {
	return json.RawMessage(readSkillSchema)
}

func (t *readSkillTool) Risk() tools.Risk { return tools.RiskReadOnly }

type readSkillArgs struct {
	Name string `json:"name"`
}

func parseArgs(args json.RawMessage) (readSkillArgs, error) {
	var a readSkillArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return a, fmt.Errorf("invalid arguments: %v", err)
	}
	if a.Name == "" {
		return a, fmt.Errorf("missing argument \"name\"")
	}
	return a, nil
}

func (t *readSkillTool) Summary(args json.RawMessage) string {
	a, err := parseArgs(args)
	if err != nil {
		return "read a skill (" + err.Error() + ")"
	}
	return fmt.Sprintf("read skill %q", a.Name)
}

func (t *readSkillTool) Run(ctx context.Context, args json.RawMessage) tools.Result {
	if err := ctx.Err(); err != nil {
		return failed(err.Error())
	}
	a, err := parseArgs(args)
	if err != nil {
		return failed(err.Error() + "; " + t.known())
	}
	skill, ok := t.skills[a.Name]
	if !ok {
		return failed(fmt.Sprintf("unknown skill %q; %s", a.Name, t.known()))
	}
	rel, err := filepath.Rel(skill.Root, skill.Path)
	if err != nil || !inside(skill.Path, skill.Root) {
		return failed(fmt.Sprintf("skill %q is not inside its skills directory", a.Name))
	}
	text, truncated, err := readInRoot(skill.Root, rel, t.maxBytes)
	if err != nil {
		return failed(fmt.Sprintf("read skill %q: %s", a.Name, errorText(err)))
	}
	if truncated {
		text += fmt.Sprintf("\n[%s truncated: only its first %d bytes are shown]\n", SkillFile, t.maxBytes)
	}
	return tools.Result{Success: true, Output: text, Truncated: truncated}
}

func (t *readSkillTool) known() string {
	if len(t.names) == 0 {
		return "no skills are available"
	}
	return "known skills: " + strings.Join(t.names, ", ")
}

func failed(msg string) tools.Result {
	return tools.Result{Success: false, Output: strings.ToValidUTF8(msg, "\uFFFD")}
}
