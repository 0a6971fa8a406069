package session

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"scv/runtime/tools"
)

// PlanToolName is the builtin tool the model keeps its plan with.
const PlanToolName = "update_plan"

// planSchema is update_plan's arguments: the whole plan each time.
const planSchema = `{"type":"object","properties":{"steps":{"type":"array","description":"The whole plan, in order.",` +
	`"items":{"type":"object","properties":{"step":{"type":"string","description":"What the step does, in a short sentence."},` +
	`"status":{"type":"string","enum":["pending","in_progress","completed"]}},"required":["step","status"],"additionalProperties":false}}},` +
	`"required":["steps"],"additionalProperties":false}`

// planTool lets the model show its plan as a checklist. It changes
// nothing outside the session, so it runs under every approval policy
// without asking (see gateForTool).
type planTool struct{}

func (planTool) Name() string { return PlanToolName }
func (planTool) Description() string {
	return "Show the user your plan for a task of several steps as a checklist, and keep it current: " +
		"send the whole list each time, with at most one step in_progress. Changes nothing in the workspace."
}
func (planTool) Parameters() json.RawMessage { return json.RawMessage(planSchema) }
func (planTool) Risk() tools.Risk            { return tools.RiskReadOnly }
func (planTool) Summary(json.RawMessage) string {
	return "update the plan"
}

// Run validates the plan and hands it to the turn, which emits it as a
// PlanUpdated event. A bad plan goes back to the model as a failed call.
func (planTool) Run(ctx context.Context, args json.RawMessage) tools.Result {
	steps, err := decodePlan(args)
	if err != nil {
		return tools.Result{Output: PlanToolName + ": " + err.Error()}
	}
	publish, _ := ctx.Value(planKey{}).(func([]PlanStep) error)
	if publish == nil {
		return tools.Result{Output: PlanToolName + ": no turn to show the plan in"}
	}
	if err := publish(steps); err != nil {
		return tools.Result{Output: PlanToolName + ": " + err.Error()}
	}
	return tools.Result{Success: true, Output: "Plan updated."}
}

type planKey struct{}

// withPlan returns ctx carrying where update_plan publishes a plan.
func withPlan(ctx context.Context, publish func([]PlanStep) error) context.Context {
	return context.WithValue(ctx, planKey{}, publish)
}

// decodePlan reads update_plan's arguments, naming what is wrong.
func decodePlan(args json.RawMessage) ([]PlanStep, error) {
	var a struct {
		Steps *[]PlanStep `json:"steps"`
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return nil, fmt.Errorf("arguments must be {\"steps\": [{\"step\": text, \"status\": pending|in_progress|completed}]}: %v", err)
	}
	if a.Steps == nil {
		return nil, fmt.Errorf("argument \"steps\" is required")
	}
	steps := *a.Steps
	inProgress := 0
	for i, st := range steps {
		if strings.TrimSpace(st.Step) == "" {
			return nil, fmt.Errorf("steps[%d].step must not be empty", i)
		}
		switch st.Status {
		case PlanPending, PlanCompleted:
		case PlanInProgress:
			inProgress++
		default:
			return nil, fmt.Errorf("steps[%d].status must be pending, in_progress or completed, not %q", i, st.Status)
		}
	}
	if inProgress > 1 {
		return nil, fmt.Errorf("at most one step may be in_progress, %d are", inProgress)
	}
	if steps == nil {
		steps = []PlanStep{}
	}
	return steps, nil
}
