package lsp_test

import (
	"testing"

	"scv/lsp/lsptest"
	"scv/lsp/schema"
)

// scv/skill/list names the session's skills, so a window (or scv acp
// through the daemon) can offer them as commands.
func TestSkillListNamesTheSessionsSkills(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		env.WriteFile(".scv/skills/review/SKILL.md", "---\ndescription: Review the staged diff\n---\nSteps.\n")
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		var res schema.SkillListResult
		ed.MustCall(schema.MethodSkillList, schema.SessionRef{SessionID: sid}, &res)
		if len(res.Skills) != 1 || res.Skills[0] != (schema.SkillInfo{Name: "review", Description: "Review the staged diff", Scope: "project"}) {
			t.Errorf("scv/skill/list = %+v", res)
		}
		err := ed.Call(schema.MethodSkillList, schema.SessionRef{SessionID: "nope"}, nil)
		lsptest.ExpectError(t, err, -32000, schema.CodeSessionNotFound)
	})
}
