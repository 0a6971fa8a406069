package session

import (
	"context"
	"encoding/json"
	"testing"

	"scv/runtime/ceiling"
	"scv/runtime/tools"
)

// fakeMCPTool stands for an MCP adapter: risk mcp, trusted or not.
type fakeMCPTool struct{ trusted bool }

func (fakeMCPTool) Name() string                                      { return "mcp__srv__do" }
func (fakeMCPTool) Description() string                               { return "" }
func (fakeMCPTool) Parameters() json.RawMessage                       { return json.RawMessage(`{"type":"object"}`) }
func (fakeMCPTool) Risk() tools.Risk                                  { return tools.RiskMCP }
func (fakeMCPTool) Summary(json.RawMessage) string                    { return "" }
func (fakeMCPTool) Run(context.Context, json.RawMessage) tools.Result { return tools.Result{} }
func (f fakeMCPTool) Trusted() bool                                   { return f.trusted }

func TestMCPToolsFollowThePolicyTableUnlessTrusted(t *testing.T) {
	want := map[string][2]gateOutcome{ // untrusted, trusted
		PolicyNever:  {gateDeny, gateRun},
		PolicyOnRisk: {gateAsk, gateRun},
		PolicyAlways: {gateAsk, gateAsk},
		PolicyAuto:   {gateRun, gateRun},
	}
	for policy, w := range want {
		for i, trusted := range []bool{false, true} {
			if got := gateForTool(policy, ceiling.Ceiling{}, fakeMCPTool{trusted}); got != w[i] {
				t.Errorf("%s trusted=%v: %v, want %v", policy, trusted, got, w[i])
			}
		}
	}
}

// Trust lifts an MCP tool only as far as the session's ceiling lets it: the
// policy a ceiling admits, with the mcp class of that ceiling.
func TestATrustedMCPToolIsHeldToTheCeiling(t *testing.T) {
	for _, tc := range []struct {
		bound, policy string
		want          gateOutcome
	}{
		{PolicyNever, PolicyNever, gateDeny},
		{PolicyOnRisk, PolicyOnRisk, gateAsk},
		{PolicyOnRisk, PolicyNever, gateAsk},
		{PolicyAlways, PolicyAlways, gateAsk},
		{PolicyAuto, PolicyAuto, gateRun},
		{PolicyAuto, PolicyNever, gateRun},
	} {
		c, err := ceiling.New(ceiling.FlagBound(tc.bound, "scv lsp"))
		if err != nil {
			t.Fatal(err)
		}
		if got := gateForTool(tc.policy, c, fakeMCPTool{trusted: true}); got != tc.want {
			t.Errorf("trusted under a ceiling of %s, policy %s: %v, want %v", tc.bound, tc.policy, got, tc.want)
		}
	}
}
