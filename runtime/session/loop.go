package session

import (
	"context"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"scv/runtime/provider"
	"scv/runtime/tools"
)

// deniedOutput is what the model is told about a call the user refused.
const deniedOutput = "The user denied this tool call. Do not retry it; continue without it or ask the user."

// notRunOutput answers a call the turn ended before running.
const notRunOutput = "not run: the turn ended first"

// runTurn drives the model until it answers without tool calls, the step
// limit is reached, or the turn is cancelled or fails. The history keeps a
// consistent shape whatever happens: every tool call gets a result.
func (s *Session) runTurn(t *turn) outcome {
	s.beginMCPTurn()
	for {
		if t.steps >= s.cfg.Agent.MaxSteps {
			return outcome{err: errMaxSteps}
		}
		t.steps++
		if err := s.applySteers(t); err != nil {
			return outcome{err: err}
		}
		if err := s.compact(t); err != nil {
			return outcome{err: err}
		}
		t.tools = s.stepTools(t.ctx)
		req := s.nextRequest()
		req.Messages, req.Tools, req.OnReasoning = s.requestMessages(), toolSpecs(t.tools), s.reasoningSink(t)
		resp, err := s.provider.Stream(t.ctx, req, func(delta string) error {
			return s.emitTurn(AssistantDelta{t.id, delta})
		})
		s.reportUsage(t, req, resp.Usage)
		content := resp.Content // the streamed text, also when the stream failed
		if err != nil {
			if content != "" {
				// Stored and shown as cut off: the text is all a crash or
				// a cancel leaves of this response.
				s.appendHistory(provider.Message{Role: provider.RoleAssistant, Content: content})
				_ = s.emitTurn(AssistantCompleted{TurnID: t.id, Content: content, Interrupted: true})
			}
			if t.ctx.Err() != nil {
				return outcome{err: context.Canceled}
			}
			return outcome{err: err}
		}
		if content != "" {
			if err := s.emitTurn(AssistantCompleted{TurnID: t.id, Content: content}); err != nil {
				return outcome{err: err}
			}
		}
		s.appendHistory(provider.Message{Role: provider.RoleAssistant, Content: content, ToolCalls: resp.ToolCalls})
		if len(resp.ToolCalls) == 0 {
			if s.finishUnlessSteered(t) {
				return outcome{}
			}
			continue
		}
		if err := s.runCalls(t, resp.ToolCalls); err != nil {
			return outcome{err: err}
		}
	}
}

// runCalls answers every tool call of one model response, in order. After
// a cancel or failure the remaining calls still get a result so the history
// never holds a call without its answer.
func (s *Session) runCalls(t *turn, calls []provider.ToolCall) error {
	var stop error
	for _, call := range calls {
		if stop != nil {
			s.appendToolResult(call.ID, notRunOutput)
			continue
		}
		result, err := s.runCall(t, call)
		if err != nil {
			stop = err
			s.appendToolResult(call.ID, notRunOutput)
			continue
		}
		s.appendToolResult(call.ID, result)
	}
	if stop != nil && t.ctx.Err() != nil {
		return context.Canceled
	}
	return stop
}

// runCall proposes, gates and runs one call; it returns the text for the model.
func (s *Session) runCall(t *turn, call provider.ToolCall) (string, error) {
	tool, ok := t.tools.Get(call.Name)
	if err := s.emitTurn(proposal(t, call, tool)); err != nil {
		return "", err
	}
	if !ok {
		res := tools.Result{Output: "unknown tool " + call.Name}
		return res.Output, s.emitToolCompleted(t, call, res)
	}
	args := json.RawMessage(call.Arguments)
	if !json.Valid(args) {
		res := tools.Result{Output: call.Name + ": arguments are not valid JSON"}
		return res.Output, s.emitToolCompleted(t, call, res)
	}
	switch gateForTool(s.ApprovalPolicy(), s.ceiling, tool) {
	case gateDeny:
		res := tools.Result{Output: "denied by the approval policy \"never\": " + string(tool.Risk()) + " tools may not run"}
		return res.Output, s.emitToolCompleted(t, call, res)
	case gateAsk:
		subject, covered := ruleSubject(tool, args)
		var held heldRule
		if covered {
			var allowed bool
			if allowed, held = s.allowedByRule(subject); allowed {
				break // a standing approval of the user's
			}
		}
		approved, err := s.askApproval(t.ctx, t, askedCall{call.ID, call.Name, tool.Risk(), tool.Summary(args), subject, covered, held})
		if err != nil {
			return "", err
		}
		if !approved {
			res := tools.Result{Output: deniedOutput}
			return res.Output, s.emitToolCompleted(t, call, res)
		}
	}
	if err := s.emitTurn(ToolStarted{t.id, call.ID, call.Name}); err != nil {
		return "", err
	}
	s.checkpointBefore(t, tool, args)
	if t.ctx.Err() != nil { // cancelled while its checkpoint waited: it does not run
		_ = s.emitToolCompleted(t, call, tools.Result{Output: "cancelled before it ran"})
		return "", context.Canceled
	}
	res := s.runWatched(s.toolContext(t, call), tool, args)
	s.checkpointToolDone(t)
	if t.ctx.Err() != nil {
		_ = s.emitToolCompleted(t, call, res)
		return "", context.Canceled
	}
	return modelText(res), s.emitToolCompleted(t, call, res)
}

// proposal is a call's tool.proposed; for a whole-file write it carries
// the text the write would replace.
func proposal(t *turn, call provider.ToolCall, tool tools.Tool) ToolProposed {
	p := ToolProposed{TurnID: t.id, CallID: call.ID, Name: call.Name, Arguments: call.Arguments}
	if r, ok := tool.(tools.Replacer); ok && json.Valid([]byte(call.Arguments)) {
		if old, ok := r.ReplacedText(json.RawMessage(call.Arguments), MaxOldTextBytes); ok {
			p.OldText = &old
		}
	}
	return p
}

func (s *Session) emitToolCompleted(t *turn, call provider.ToolCall, res tools.Result) error {
	return s.emitTurn(ToolCompleted{t.id, call.ID, call.Name, res.Success, validUTF8(res.Output), res.Truncated})
}

func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// modelText is a tool result as the model reads it.
func modelText(res tools.Result) string {
	out := validUTF8(res.Output)
	if !res.Success {
		out = "error: " + out
	}
	if res.Truncated {
		out += "\n[output truncated]"
	}
	return out
}

func (s *Session) appendHistory(m provider.Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addHistoryLocked(m)
}

func (s *Session) appendToolResult(callID, text string) {
	if text == "" {
		// An empty tool message goes out without content, which
		// OpenAI-compatible servers reject.
		text = "(no output)"
	}
	s.appendHistory(provider.Message{Role: provider.RoleTool, ToolCallID: callID, Content: text})
}

// requestMessages is the system prompt followed by a copy of the history.
func (s *Session) requestMessages() []provider.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	msgs := make([]provider.Message, 0, len(s.history)+1)
	msgs = append(msgs, provider.Message{Role: provider.RoleSystem, Content: s.system})
	return append(msgs, s.history...)
}

func toolSpecs(registry *tools.Registry) []provider.ToolSpec {
	all := registry.All()
	if len(all) == 0 {
		return nil
	}
	specs := make([]provider.ToolSpec, 0, len(all))
	for _, tool := range all {
		specs = append(specs, provider.ToolSpec{Name: tool.Name(), Description: tool.Description(), Parameters: tool.Parameters()})
	}
	return specs
}
