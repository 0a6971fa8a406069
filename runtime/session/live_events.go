package session

// Events of issue 12 that show a turn's progress beyond its text and tool
// calls: the model's reasoning, a running tool's output, the plan and the
// token usage.
type (
	// AssistantReasoning is a piece of the reasoning text a model streams
	// beside its answer (reasoning_content). Like AssistantDelta it is a
	// delta; the reasoning never goes back to the model. The session log
	// keeps a response's whole reasoning as one event (see
	// recordExtras.Reasoning), so a replay from the store shows it as one
	// delta.
	AssistantReasoning struct {
		TurnID  string `json:"turnId"`
		Content string `json:"content"`
	}
	// ToolOutput is a chunk of what a running tool (shell) printed, sent
	// while it runs and coalesced (see tools.OutputInterval). It is not
	// stored: the tool's result holds the same output, bounded alike.
	ToolOutput struct {
		TurnID string `json:"turnId"`
		CallID string `json:"callId"`
		Chunk  string `json:"chunk"`
	}
	// PlanUpdated is the plan the model set with the update_plan tool: the
	// whole list of steps each time.
	PlanUpdated struct {
		TurnID string     `json:"turnId"`
		Steps  []PlanStep `json:"steps"`
	}
	// SessionUsage follows every model call. InputTokens and OutputTokens
	// are the session's totals; ContextTokens is the last call's prompt
	// size and ContextMaxTokens the model's context window (config
	// agent.model_context_window; 0 when unknown).
	SessionUsage struct {
		TurnID           string `json:"turnId"`
		InputTokens      int    `json:"inputTokens"`
		OutputTokens     int    `json:"outputTokens"`
		ContextTokens    int    `json:"contextTokens"`
		ContextMaxTokens int    `json:"contextMaxTokens"`
	}
)

// PlanStep is one step of a plan; Status is one of the PlanStatus values.
type PlanStep struct {
	Step   string `json:"step"`
	Status string `json:"status"`
}

// The statuses of a plan step.
const (
	PlanPending    = "pending"
	PlanInProgress = "in_progress"
	PlanCompleted  = "completed"
)

func (AssistantReasoning) isPayload() {}
func (ToolOutput) isPayload()         {}
func (PlanUpdated) isPayload()        {}
func (SessionUsage) isPayload()       {}
