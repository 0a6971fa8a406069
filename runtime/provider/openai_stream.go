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

// attempt performs one HTTP request and reads its stream to the end.
func (p *OpenAI) attempt(parent context.Context, creq openai.ChatCompletionRequest, onDelta func(string) error) (Response, attemptResult) {
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
		content strings.Builder
		acc     toolAccumulator
		resp    Response
	)
	partial := func() Response {
		resp.Content = content.String()
		resp.ToolCalls = acc.calls()
		return resp
	}
	for {
		chunk, err := stream.Recv()
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
			for _, text := range [2]string{choice.Delta.Content, choice.Delta.Refusal} {
				if text == "" {
					continue
				}
				content.WriteString(text)
				res.delivered = true
				if err := onDelta(text); err != nil {
					res.callbackErr = true
					return fail(partial(), err)
				}
			}
			for _, tc := range choice.Delta.ToolCalls {
				acc.add(tc)
			}
		}
	}
}

// toolAccumulator assembles streamed tool calls. The first delta of a call
// carries its index, id and name; later deltas with the same index carry
// pieces of the arguments.
type toolAccumulator struct {
	byIndex map[int]*ToolCall
	order   []int
	last    int
}

func (a *toolAccumulator) add(tc openai.ToolCall) {
	if a.byIndex == nil {
		a.byIndex = make(map[int]*ToolCall)
	}
	idx := a.last
	switch {
	case tc.Index != nil:
		idx = *tc.Index
	case tc.ID != "" && a.byIndex[idx] != nil && a.byIndex[idx].ID != tc.ID:
		// Some servers omit the index; a new id then starts a new call.
		idx = len(a.order)
		for a.byIndex[idx] != nil {
			idx++
		}
	}
	a.last = idx
	call := a.byIndex[idx]
	if call == nil {
		call = &ToolCall{}
		a.byIndex[idx] = call
		a.order = append(a.order, idx)
	}
	if tc.ID != "" {
		call.ID = tc.ID
	}
	switch name := tc.Function.Name; {
	case name == "" || name == call.Name:
		// Some servers repeat the name on every delta.
	case call.Name == "":
		call.Name = name
	default:
		call.Name += name
	}
	call.Arguments += tc.Function.Arguments
}

func (a *toolAccumulator) calls() []ToolCall {
	if len(a.order) == 0 {
		return nil
	}
	idx := append([]int(nil), a.order...)
	sort.Ints(idx)
	out := make([]ToolCall, 0, len(idx))
	for _, i := range idx {
		call := *a.byIndex[i]
		if strings.TrimSpace(call.Arguments) == "" {
			call.Arguments = "{}"
		}
		out = append(out, call)
	}
	return out
}
