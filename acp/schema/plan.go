package schema

// PlanUpdate is a plan update: the whole plan, which replaces the last.
type PlanUpdate struct {
	SessionUpdate string      `json:"sessionUpdate"`
	Entries       []PlanEntry `json:"entries"`
}

// PlanEntry is one step of a plan; Status is pending, in_progress or
// completed (scv's plan statuses are ACP's).
type PlanEntry struct {
	Content  string `json:"content"`
	Priority string `json:"priority"`
	Status   string `json:"status"`
}

// PriorityMedium is the priority of every entry: scv's plans rank none.
const PriorityMedium = "medium"
