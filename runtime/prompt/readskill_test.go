package prompt

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"scv/runtime/tools"
)

func skillsFixture(t *testing.T) (root string, skills []Skill) {
	t.Helper()
	root, ws, home := layout(t)
	skillAt(t, filepath.Join(ws, ProjectSkillsDir), "review", "---\ndescription: Review code\n---\nStep 1: read the diff.\n")
	skillAt(t, filepath.Join(home, HomeSkillsDir), "deploy", "Deploy it.\n")
	sys := build(t, Options{Workspace: ws, Home: home, SkillsEnabled: true})
	if len(sys.Skills) != 2 {
		t.Fatalf("skills = %+v", sys.Skills)
	}
	return root, sys.Skills
}

func TestReadSkillTool(t *testing.T) {
	_, skills := skillsFixture(t)
	tool := NewReadSkillTool(skills, 1<<20)
	if tool.Name() != ReadSkillToolName || tool.Risk() != tools.RiskReadOnly || tool.Description() == "" {
		t.Fatalf("name %q risk %q", tool.Name(), tool.Risk())
	}
	var schema map[string]any
	if err := json.Unmarshal(tool.Parameters(), &schema); err != nil || schema["type"] != "object" {
		t.Fatalf("schema %s: %v", tool.Parameters(), err)
	}
	args := json.RawMessage(`{"name":"review"}`)
	if s := tool.Summary(args); s != `read skill "review"` {
		t.Fatalf("summary = %q", s)
	}
	res := tool.Run(context.Background(), args)
	want := "---\ndescription: Review code\n---\nStep 1: read the diff.\n"
	if !res.Success || res.Output != want || res.Truncated {
		t.Fatalf("result = %+v", res)
	}
	if res := tool.Run(context.Background(), json.RawMessage(`{"name":"deploy"}`)); !res.Success || res.Output != "Deploy it.\n" {
		t.Fatalf("user skill: %+v", res)
	}
}

func TestReadSkillFailures(t *testing.T) {
	_, skills := skillsFixture(t)
	tool := NewReadSkillTool(skills, 1<<20)
	cases := []struct{ args, want string }{
		{`{"name":"nope"}`, `unknown skill "nope"; known skills: deploy, review`},
		{`{}`, `missing argument "name"; known skills: deploy, review`},
		{`not json`, "invalid arguments"},
	}
	for _, tc := range cases {
		res := tool.Run(context.Background(), json.RawMessage(tc.args))
		if res.Success || !strings.Contains(res.Output, tc.want) {
			t.Errorf("%s: result %+v, want failure containing %q", tc.args, res, tc.want)
		}
	}
	empty := NewReadSkillTool(nil, 0)
	if res := empty.Run(context.Background(), json.RawMessage(`{"name":"x"}`)); res.Success || !strings.Contains(res.Output, "no skills are available") {
		t.Fatalf("no skills: %+v", res)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if res := tool.Run(ctx, json.RawMessage(`{"name":"review"}`)); res.Success {
		t.Fatalf("cancelled run succeeded: %+v", res)
	}
}

func TestReadSkillTruncates(t *testing.T) {
	_, skills := skillsFixture(t)
	res := NewReadSkillTool(skills, 8).Run(context.Background(), json.RawMessage(`{"name":"review"}`))
	if !res.Success || !res.Truncated || !strings.HasPrefix(res.Output, "---\ndesc\n[") || !strings.Contains(res.Output, "8 bytes") {
		t.Fatalf("result = %+v", res)
	}
}

// A SKILL.md replaced by a symlink out of its root after discovery is not
// read.
func TestReadSkillRefusesSwappedSymlink(t *testing.T) {
	root, skills := skillsFixture(t)
	secret := filepath.Join(root, "secret")
	write(t, secret, "TOP SECRET")
	var review Skill
	for _, s := range skills {
		if s.Name == "review" {
			review = s
		}
	}
	if err := os.Remove(review.Path); err != nil {
		t.Fatal(err)
	}
	symlink(t, secret, review.Path)
	res := NewReadSkillTool(skills, 1<<20).Run(context.Background(), json.RawMessage(`{"name":"review"}`))
	if res.Success || strings.Contains(res.Output, "TOP SECRET") {
		t.Fatalf("result = %+v", res)
	}
}
