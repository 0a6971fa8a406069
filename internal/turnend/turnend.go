// Package turnend renders, for the terminal views (scv exec and scv
// attach), what a turn's terminal event says besides how it ended.
package turnend

import (
	"encoding/json"

	"scv/internal/termsafe"
)

// NoticeLine is the line a terminal view shows under a turn's end for the
// notice its terminal event (scv/turn/completed, cancelled or failed)
// carries, escaped for the terminal; "" when it carries none. The runtime
// sets it once per session, when the session's file passes 80 % of its
// bound (sessions.max_log_bytes).
func NoticeLine(params json.RawMessage) string {
	var p struct {
		Notice string `json:"notice"`
	}
	if json.Unmarshal(params, &p) != nil || p.Notice == "" {
		return ""
	}
	return "note: " + termsafe.Line(p.Notice)
}
