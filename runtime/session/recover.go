package session

import (
	"fmt"
	"log/slog"
	"runtime/debug"

	"scv/runtime/provider"
)

// TurnFailedInternal is the turn/failed code of a turn that ended on a
// fault of scv itself (a recovered panic), not of the model or the user.
const TurnFailedInternal = "internal"

// TurnFailedInterrupted is the turn/failed code a load from the store gives
// a turn that was running when its process died.
const TurnFailedInterrupted = "interrupted"

// turnPanic is a panic recovered inside a turn.
type turnPanic struct{ value any }

func (p *turnPanic) Error() string { return fmt.Sprintf("internal error: %v", p.value) }

// runTurnGuarded runs t and turns a panic anywhere in it (provider, tool,
// compaction, approval) into that turn's failure. A turn goroutine that
// panicked unrecovered would end the whole process, and with it every
// session of every window the daemon serves.
func (s *Session) runTurnGuarded(t *turn) (o outcome) {
	defer func() {
		if v := recover(); v != nil {
			s.logger().Error("recovered from a panic in a turn", "session", s.id, "turn", t.id,
				"panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			s.answerOpenCalls()
			o = outcome{err: &turnPanic{value: v}}
		}
	}()
	return s.runTurn(t)
}

// logPanic is the last resort of a turn goroutine, for a panic outside
// runTurn (ending the turn): it is logged and the process goes on.
func (s *Session) logPanic(t *turn) {
	if v := recover(); v != nil {
		s.logger().Error("recovered from a panic ending a turn", "session", s.id, "turn", t.id,
			"panic", fmt.Sprint(v), "stack", string(debug.Stack()))
	}
}

func (s *Session) logger() *slog.Logger {
	if s.log == nil {
		return slog.Default()
	}
	return s.log
}

// answerOpenCalls gives every tool call of the newest assistant message
// that has no result yet a "not run" result, so the history keeps the
// shape endpoints require after a turn stopped between a call and its
// answer.
func (s *Session) answerOpenCalls() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answerOpenCallsLocked()
}

func (s *Session) answerOpenCallsLocked() {
	last := -1
	for i := len(s.history) - 1; i >= 0; i-- {
		if s.history[i].Role == provider.RoleAssistant && len(s.history[i].ToolCalls) > 0 {
			last = i
			break
		}
	}
	if last < 0 {
		return
	}
	answered := map[string]bool{}
	for _, m := range s.history[last+1:] {
		if m.Role == provider.RoleTool {
			answered[m.ToolCallID] = true
		}
	}
	for _, call := range s.history[last].ToolCalls {
		if !answered[call.ID] {
			s.addHistoryLocked(provider.Message{Role: provider.RoleTool, ToolCallID: call.ID, Content: notRunOutput})
		}
	}
}
