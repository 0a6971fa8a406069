package provider

import (
	"context"
	"errors"
	"io"
	"sort"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Causes set on an attempt's context when one of the provider's own clocks
// ends it, so a cancelled read can be told apart from the caller's cancel.
var (
	errAttemptTimeout = errors.New("request timed out")
	errIdleTimeout    = errors.New("no data from the provider within the idle timeout")
)

// attemptResult describes how one HTTP attempt ended.
type attemptResult struct {
	err         error
	callbackErr bool // err came from onDelta and is returned unchanged
	delivered   bool // onDelta was called at least once
	cause       error
	state       *attemptState
}

// attempt performs one HTTP request and reads its stream to the end, or
// until the response would exceed limits.
func (p *OpenAI) attempt(parent context.Context, creq openai.ChatCompletionRequest, limits Limits, onDelta, onReasoning func(string) error) (Response, attemptResult) {
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	total := time.AfterFunc(p.timeout, func() { cancel(errAttemptTimeout) })
	defer total.Stop()
	idle := time.AfterFunc(p.idleTimeout, func() { cancel(errIdleTimeout) })
	defer idle.Stop()

	st := &attemptState{touch: func() { idle.Reset(p.idleTimeout) }}
	res := attemptResult{state: st}
	fail := func(resp Response, err error) (Response, attemptResult) {
		res.err = err
		res.cause = context.Cause(ctx)
		return resp, res
	}

	stream, err := p.client.CreateChatCompletionStream(withAttempt(ctx, st), creq)
	if err != nil {
		return fail(Response{}, err)
	}
	defer stream.Close()

	var (
		content   strings.Builder
		reasoning strings.Builder
		spent     = newBudget(limits)
		acc       = toolAccumulator{budget: spent}
		resp      Response
	)
	partial := func() Response {
		resp.Content = content.String()
		resp.Reasoning = reasoning.String()
		resp.ToolCalls = acc.calls()
		return resp
	}
	for {
		chunk, err := recvChunk(stream)
		if errors.Is(err, io.EOF) {
			if !st.sawDone {
				// The body ended cleanly but without its terminator: the
				// answer may be cut short, so it is not a success.
				return fail(partial(), errMissingDone)
			}
			return partial(), res
		}
		if err != nil {
			return fail(partial(), err)
		}
		if chunk.Usage != nil {
			resp.Usage = Usage{InputTokens: chunk.Usage.PromptTokens, OutputTokens: chunk.Usage.CompletionTokens}
		}
		for _, choice := range chunk.Choices {
			if choice.Index != 0 {
				continue // only one choice is requested
			}
			if choice.FinishReason != "" {
				resp.FinishReason = string(choice.FinishReason)
			}
			if text := choice.Delta.reasoning(); text != "" {
				if err := spent.spend(len(text)); err != nil {
					return fail(partial(), err)
				}
				reasoning.WriteString(text)
				if onReasoning != nil {
					res.delivered = true
					if err := onReasoning(text); err != nil {
						res.callbackErr = true
						return fail(partial(), err)
					}
				}
			}
			for _, text := range [2]string{choice.Delta.Content, choice.Delta.Refusal} {
				if text == "" {
					continue
				}
				if err := spent.spend(len(text)); err != nil {
					return fail(partial(), err)
				}
				content.WriteString(text)
				res.delivered = true
				if err := onDelta(text); err != nil {
					res.callbackErr = true
					return fail(partial(), err)
				}
			}
			for _, tc := range choice.Delta.ToolCalls {
				if err := acc.add(tc); err != nil {
					return fail(partial(), err)
				}
			}
		}
	}
}

// toolAccumulator assembles streamed tool calls, charging budget for every
// byte it keeps. The first delta of a call carries its index, id and name;
// later deltas with the same index carry pieces of the arguments, which
// are appended in place (not by building a new string per piece, which
// copies the whole prefix every time).
type toolAccumulator struct {
	budget  *budget // nil: the default Limits
	byIndex map[int]*callBuilder
	order   []int
	last    int
}

type callBuilder struct {
	id         string
	name, args strings.Builder
}

func (a *toolAccumulator) add(tc openai.ToolCall) error {
	if a.byIndex == nil {
		a.byIndex = make(map[int]*callBuilder)
	}
	if a.budget == nil {
		a.budget = newBudget(Limits{})
	}
	idx := a.last
	switch {
	case tc.Index != nil:
		idx = *tc.Index
	case tc.ID != "" && a.byIndex[idx] != nil && a.byIndex[idx].id != tc.ID:
		// Some servers omit the index; a new id then starts a new call.
		idx = len(a.order)
		for a.byIndex[idx] != nil {
			idx++
		}
	}
	a.last = idx
	call := a.byIndex[idx]
	if call == nil {
		if err := a.budget.call(); err != nil {
			return err
		}
		call = &callBuilder{}
		a.byIndex[idx] = call
		a.order = append(a.order, idx)
	}
	if tc.ID != "" && tc.ID != call.id {
		if err := a.budget.spend(len(tc.ID)); err != nil {
			return err
		}
		call.id = tc.ID
	}
	// Some servers repeat the name on every delta; others split it.
	if name := tc.Function.Name; name != "" && name != call.name.String() {
		if err := a.budget.spend(len(name)); err != nil {
			return err
		}
		call.name.WriteString(name)
	}
	if args := tc.Function.Arguments; args != "" {
		if err := a.budget.arguments(call.args.Len(), len(args)); err != nil {
			return err
		}
		call.args.WriteString(args)
	}
	return nil
}

func (a *toolAccumulator) calls() []ToolCall {
	if len(a.order) == 0 {
		return nil
	}
	idx := append([]int(nil), a.order...)
	sort.Ints(idx)
	out := make([]ToolCall, 0, len(idx))
	for _, i := range idx {
		b := a.byIndex[i]
		call := ToolCall{ID: b.id, Name: b.name.String(), Arguments: b.args.String()}
		if strings.TrimSpace(call.Arguments) == "" {
			call.Arguments = "{}"
		}
		out = append(out, call)
	}
	return out
}
