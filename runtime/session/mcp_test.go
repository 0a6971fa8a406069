package session

import (
	"context"
	"encoding/json"
	"testing"

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
			if got := gateForTool(policy, fakeMCPTool{trusted}); got != w[i] {
				t.Errorf("%s trusted=%v: %v, want %v", policy, trusted, got, w[i])
			}
		}
	}
}
