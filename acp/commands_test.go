package acp_test

import (
	"testing"
)

// The session's skills reach the client as slash commands after
// session/new and after session/load, each after the answer.
func TestSkillsAreSentAsAvailableCommands(t *testing.T) {
	eachBackend(t, skillsAreSentAsAvailableCommands)
}

func skillsAreSentAsAvailableCommands(t *testing.T, backend string) {
	env := newEnvFor(t, backend)
	env.WriteFile(".scv/skills/review/SKILL.md", "---\ndescription: Review the staged diff\n---\nSteps.\n")
	a, _ := startAgentFor(t, env, backend)
	a.initialize()
	sid := a.newSession(1, env.Work)
	_, answer := a.waitFor("the answer to session/new", 0, func(m msg) bool { return string(m.ID) == "1" && m.Method == "" })
	_, i := a.update(0, "available_commands_update", `"sessionId":"`+sid+`"`, `"name":"review"`, `"description":"Review the staged diff"`, `"hint":`)
	if i < answer {
		t.Fatalf("available_commands_update (%d) came before the answer to session/new (%d)", i, answer)
	}
	a.request(2, "session/load", map[string]any{"sessionId": sid, "cwd": env.Work, "mcpServers": []any{}})
	a.result(2, nil)
	_, loaded := a.waitFor("the answer to session/load", 0, func(m msg) bool { return string(m.ID) == "2" && m.Method == "" })
	a.update(loaded, "available_commands_update", `"name":"review"`)
	a.request(3, "session/resume", map[string]any{"sessionId": sid, "cwd": env.Work, "mcpServers": []any{}})
	a.result(3, nil)
	_, resumed := a.waitFor("the answer to session/resume", 0, func(m msg) bool { return string(m.ID) == "3" && m.Method == "" })
	a.update(resumed, "available_commands_update", `"name":"review"`)
}
