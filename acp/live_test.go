package acp_test

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"scv/internal/fakeopenai"
	"scv/lsp/lsptest"
	"scv/lsp/schema"
	"scv/runtime/provider"
	"scv/runtime/session"
)

// The runtime's reasoning, plan and usage reach the client as
// agent_thought_chunk, plan and usage_update, in process and through a
// daemon; session/resume shows the last plan and usage again.
func TestReasoningPlanAndUsageReachTheClient(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		env := newEnvFor(t, backend)
		plan := map[string]any{"steps": []map[string]string{
			{"step": "read the code", "status": "completed"},
			{"step": "fix the bug", "status": "in_progress"},
		}}
		raw, _ := json.Marshal(plan)
		env.OpenAI.Enqueue(
			fakeopenai.Reply{Reasoning: []string{"weighing the options"},
				ToolCalls: []provider.ToolCall{{ID: "p1", Name: session.PlanToolName, Arguments: string(raw)}}},
			fakeopenai.Reply{Chunks: []string{"fixed"}, Usage: &provider.Usage{InputTokens: 1200, OutputTokens: 30}},
		)
		a, _ := startAgentFor(t, env, backend)
		a.initialize()
		sid := a.newSession(1, env.Work)
		a.request(2, "session/prompt", prompt(sid, "fix it"))
		a.update(0, "agent_thought_chunk", `"text":"weighing the options"`)
		a.update(0, "plan", `{"content":"read the code","priority":"medium","status":"completed"}`,
			`{"content":"fix the bug","priority":"medium","status":"in_progress"}`)
		a.update(0, "usage_update", `"used":1200`, `"size":128000`)
		var r struct{ StopReason string }
		a.result(2, &r)
		if r.StopReason != "end_turn" {
			t.Fatalf("stopReason = %q", r.StopReason)
		}
		// A resumed session (no replay) shows its last plan and context use.
		a.request(3, "session/resume", map[string]any{"sessionId": sid, "cwd": env.Work, "mcpServers": []any{}})
		a.result(3, nil)
		_, resumed := a.waitFor("the answer to session/resume", 0, func(m msg) bool { return string(m.ID) == "3" && m.Method == "" })
		a.update(resumed, "plan", `"content":"fix the bug"`)
		a.update(resumed, "usage_update", `"used":1200`)
	})
}

// An ACP window that loads a daemon session while its shell call runs is
// shown the output so far (the chunks the session still holds in memory)
// as the call's in_progress content, before session/load answers; then
// the call's further output and its completion.
func TestLoadWhileAShellCallRunsShowsItsOutput(t *testing.T) {
	t.Parallel()
	env := newEnvFor(t, "daemon")
	fifo := env.MakeFifo("release.fifo")
	cmd := "echo first; read line < " + fifo.Path + "; echo \"then $line\""
	args, _ := json.Marshal(map[string]string{"command": cmd})
	env.OpenAI.Enqueue(fakeopenai.Reply{ToolCalls: []provider.ToolCall{{ID: "sh1", Name: "shell", Arguments: string(args)}}},
		fakeopenai.Reply{Chunks: []string{"ran it"}})
	a, ed := startAgentFor(t, env, "daemon")
	a.initialize()
	sid := ed.StartSession(env.Work, &schema.SessionStartParams{ApprovalPolicy: session.PolicyAuto}).SessionID
	turn := ed.StartTurn(sid, "run it").TurnID
	ed.AwaitNotification(schema.EvToolOutput, func(n lsptest.Note) bool { return n.Str("chunk") == "first\n" }, 0)

	a.request(1, "session/load", map[string]any{"sessionId": sid, "cwd": env.Work, "mcpServers": []any{}})
	_, live := a.update(0, "tool_call_update", `"toolCallId":"sh1"`, `"status":"in_progress"`, `"text":"first\n"`)
	_, answer := a.waitFor("the answer to session/load", 0, func(m msg) bool { return string(m.ID) == "1" && m.Method == "" })
	if answer < live {
		t.Fatalf("session/load answered (#%d) before the output so far was shown (#%d)", answer, live)
	}
	if err := os.WriteFile(fifo.Path, []byte("released\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ed.ExpectTerminal(turn, schema.EvTurnCompleted)
	done, _ := a.update(live, "tool_call_update", `"toolCallId":"sh1"`, `"status":"completed"`)
	if !strings.Contains(done.raw, "then released") {
		t.Fatalf("the completed call shows %s", done.raw)
	}
}

// The model option lists the provider's models, and choosing one switches
// the session's next request to it.
func TestModelOptionSwitchesTheModel(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		env := newEnvFor(t, backend)
		env.OpenAI.Enqueue(fakeopenai.Reply{Chunks: []string{"ok"}})
		a, _ := startAgentFor(t, env, backend)
		a.initialize()
		a.request(1, "session/new", map[string]any{"cwd": env.Work, "mcpServers": []any{}})
		var setup struct {
			SessionID     string         `json:"sessionId"`
			ConfigOptions []configOption `json:"configOptions"`
		}
		a.result(1, &setup)
		model := optionNamed(t, setup.ConfigOptions, "model")
		if model.CurrentValue != lsptest.TestModel || !slices.Equal(model.values(), []string{lsptest.TestModel, "fake-large", "fake-small"}) {
			t.Fatalf("model option = %+v, want %s and the provider's models", model, lsptest.TestModel)
		}
		a.request(2, "session/set_config_option", map[string]any{"sessionId": setup.SessionID, "configId": "model", "value": "fake-large"})
		var set struct {
			ConfigOptions []configOption `json:"configOptions"`
		}
		a.result(2, &set)
		if got := optionNamed(t, set.ConfigOptions, "model").CurrentValue; got != "fake-large" {
			t.Fatalf("after set_config_option the model is %q", got)
		}
		a.update(0, "config_option_update", `"currentValue":"fake-large"`)
		a.request(3, "session/prompt", prompt(setup.SessionID, "hello"))
		a.result(3, nil)
		if reqs := env.OpenAI.Requests(); len(reqs) != 1 || reqs[0].Model != "fake-large" {
			t.Fatalf("the model was asked as %v, want fake-large", modelsOf(reqs))
		}
	})
}

// A mode chosen in an scv/* window reaches the ACP window of the same
// daemon session as current_mode_update and config_option_update, and an
// ACP set_mode reaches the scv/* window as scv/session/configured.
func TestModeChangesCrossWindows(t *testing.T) {
	t.Parallel()
	env := newEnvFor(t, "daemon")
	a, ed := startAgentFor(t, env, "daemon")
	a.initialize()
	sid := a.newSession(1, env.Work)
	if _, err := ed.Attach(sid, nil); err != nil {
		t.Fatal(err)
	}
	ed.MustCall(schema.MethodSessionConfigure, schema.SessionConfigureParams{SessionID: sid, ApprovalPolicy: session.PolicyAlways}, nil)
	_, i := a.update(0, "current_mode_update", `"currentModeId":"always"`)
	a.update(i, "config_option_update", `"id":"mode"`, `"currentValue":"always"`)

	a.request(2, "session/set_mode", map[string]any{"sessionId": sid, "modeId": session.PolicyAuto})
	a.result(2, nil)
	ed.AwaitNotification(schema.EvSessionConfigured, func(n lsptest.Note) bool { return n.Str("approvalPolicy") == session.PolicyAuto }, 0)
}

type configOption struct {
	ID           string `json:"id"`
	CurrentValue string `json:"currentValue"`
	Options      []struct {
		Value string `json:"value"`
	} `json:"options"`
}

func (o configOption) values() []string {
	var out []string
	for _, v := range o.Options {
		out = append(out, v.Value)
	}
	return out
}

func optionNamed(t *testing.T, opts []configOption, id string) configOption {
	t.Helper()
	for _, o := range opts {
		if o.ID == id {
			return o
		}
	}
	t.Fatalf("no %s option in %+v", id, opts)
	return configOption{}
}

func modelsOf(reqs []fakeopenai.RecordedRequest) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.Model)
	}
	return out
}
