package provider

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// Replay limits and the answer given once a script has run out.
const (
	// MaxReplayRepeat bounds the "repeat" of one text line.
	MaxReplayRepeat = 10_000_000
	// MaxReplayDelayMS bounds the "delay_ms" of one text line.
	MaxReplayDelayMS = 10_000
	// MaxReplayResponseBytes bounds the text one scripted response streams.
	MaxReplayResponseBytes = 256 << 20
	// ReplayExhaustedText is streamed when a request asks for a response
	// past the end of the script.
	ReplayExhaustedText = "(the replay script has no more responses)"
)

//go:embed demo.jsonl
var demoScript string

// DemoScript returns the script used by `scv demo`: one response that
// explains itself and edits notes.md, and one that confirms the edit.
func DemoScript() []byte { return []byte(demoScript) }

// Replay answers requests from a script of JSON lines instead of a model.
// It is stateless: which response a request gets follows from the request
// itself (see Stream), so one Replay serves any number of sessions.
type Replay struct {
	responses []replayResponse
}

type replayResponse struct {
	steps     []replayStep
	textBytes int // total text streamed, to size the content buffer once
}

// replayStep is one script line inside a response; exactly one field is set.
type replayStep struct {
	text      string
	reasoning string // a reasoning delta (OnReasoning)
	repeat    int
	delay     time.Duration // before each delta of text: paces a demo
	call      *ToolCall
	usage     *Usage
	err       *Error
}

// scriptLine is the wire form of a script line.
type scriptLine struct {
	Text      *string `json:"text"`
	Reasoning *string `json:"reasoning"`
	Repeat    *int    `json:"repeat"`
	DelayMS   *int    `json:"delay_ms"`
	ToolCall  *struct {
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"tool_call"`
	Usage *struct {
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
	} `json:"usage"`
	Error *struct {
		Code    Code   `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Stop *bool `json:"stop"`
}

// NewReplay parses and validates script. Errors name the 1-based line.
func NewReplay(script []byte) (*Replay, error) {
	r := &Replay{}
	var cur replayResponse
	open := false // cur has at least one line
	for i, raw := range bytes.Split(script, []byte("\n")) {
		lineNo := i + 1
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 {
			continue
		}
		step, stop, err := parseScriptLine(raw, len(r.responses), len(cur.steps))
		if err != nil {
			return nil, fmt.Errorf("replay script line %d: %w", lineNo, err)
		}
		if stop {
			r.responses = append(r.responses, cur)
			cur, open = replayResponse{}, false
			continue
		}
		if step.repeat > 0 {
			cur.textBytes += len(step.text) * step.repeat
			if cur.textBytes > MaxReplayResponseBytes {
				return nil, fmt.Errorf("replay script line %d: response text exceeds %d bytes", lineNo, MaxReplayResponseBytes)
			}
		}
		cur.steps = append(cur.steps, step)
		open = true
	}
	if open {
		r.responses = append(r.responses, cur)
	}
	if len(r.responses) == 0 {
		return nil, errors.New("replay script: no responses (every line is blank)")
	}
	return r, nil
}

func parseScriptLine(raw []byte, respIdx, stepIdx int) (step replayStep, stop bool, err error) {
	var line scriptLine
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&line); err != nil {
		return step, false, fmt.Errorf("invalid JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return step, false, errors.New("unexpected data after the JSON object")
	}

	kinds := 0
	for _, set := range []bool{line.Text != nil, line.Reasoning != nil, line.ToolCall != nil, line.Usage != nil, line.Error != nil, line.Stop != nil} {
		if set {
			kinds++
		}
	}
	if kinds != 1 {
		return step, false, errors.New(`want exactly one of "text", "reasoning", "tool_call", "usage", "error", "stop"`)
	}
	if line.Repeat != nil && line.Text == nil {
		return step, false, errors.New(`"repeat" is only allowed with "text"`)
	}
	if line.DelayMS != nil && line.Text == nil {
		return step, false, errors.New(`"delay_ms" is only allowed with "text"`)
	}

	switch {
	case line.Text != nil:
		step.text, step.repeat = *line.Text, 1
		if line.Repeat != nil {
			step.repeat = *line.Repeat
			if step.repeat < 1 || step.repeat > MaxReplayRepeat {
				return step, false, fmt.Errorf(`"repeat" must be between 1 and %d, got %d`, MaxReplayRepeat, step.repeat)
			}
		}
		if step.text == "" {
			return step, false, errors.New(`"text" must not be empty`)
		}
		if line.DelayMS != nil {
			if *line.DelayMS < 0 || *line.DelayMS > MaxReplayDelayMS {
				return step, false, fmt.Errorf(`"delay_ms" must be between 0 and %d, got %d`, MaxReplayDelayMS, *line.DelayMS)
			}
			step.delay = time.Duration(*line.DelayMS) * time.Millisecond
		}
	case line.Reasoning != nil:
		if *line.Reasoning == "" {
			return step, false, errors.New(`"reasoning" must not be empty`)
		}
		step.reasoning = *line.Reasoning
	case line.ToolCall != nil:
		tc := line.ToolCall
		if strings.TrimSpace(tc.Name) == "" {
			return step, false, errors.New(`"tool_call.name" is required`)
		}
		args, err := replayArguments(tc.Arguments)
		if err != nil {
			return step, false, fmt.Errorf(`"tool_call.arguments": %w`, err)
		}
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%d_%d", respIdx+1, stepIdx+1)
		}
		step.call = &ToolCall{ID: id, Name: tc.Name, Arguments: args}
	case line.Usage != nil:
		if line.Usage.InputTokens < 0 || line.Usage.OutputTokens < 0 {
			return step, false, errors.New(`"usage" token counts must not be negative`)
		}
		step.usage = &Usage{InputTokens: line.Usage.InputTokens, OutputTokens: line.Usage.OutputTokens}
	case line.Error != nil:
		switch line.Error.Code {
		case CodeAuth, CodeRateLimited, CodeUnavailable, CodeTimeout, CodeError:
		default:
			return step, false, fmt.Errorf(`"error.code" %q is not a provider code`, line.Error.Code)
		}
		msg := line.Error.Message
		if msg == "" {
			msg = "scripted failure"
		}
		step.err = &Error{Code: line.Error.Code, Message: msg}
	case line.Stop != nil:
		if !*line.Stop {
			return step, false, errors.New(`"stop" must be true`)
		}
		return step, true, nil
	}
	return step, false, nil
}

// replayArguments accepts a JSON object, or a string holding JSON text,
// and returns compact JSON text.
func replayArguments(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "{}", nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", err
		}
		if !json.Valid([]byte(s)) {
			return "", errors.New("the string is not valid JSON")
		}
		return s, nil
	}
	if raw[0] != '{' {
		return "", errors.New("must be an object or a string holding JSON")
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// Stream replays one response. The response is chosen by counting the
// assistant messages after the last user message: a fresh turn gets the
// first response, the request carrying its tool results the second, and
// so on. Past the end of the script it streams ReplayExhaustedText.
func (r *Replay) Stream(ctx context.Context, req Request, onDelta func(string) error) (Response, error) {
	idx := responseIndex(req.Messages)
	if idx >= len(r.responses) {
		exhausted := replayResponse{steps: []replayStep{{text: ReplayExhaustedText, repeat: 1}}, textBytes: len(ReplayExhaustedText)}
		return exhausted.play(ctx, req, onDelta)
	}
	return r.responses[idx].play(ctx, req, onDelta)
}

func responseIndex(msgs []Message) int {
	n := 0
	for i := len(msgs) - 1; i >= 0 && msgs[i].Role != RoleUser; i-- {
		if msgs[i].Role == RoleAssistant {
			n++
		}
	}
	return n
}

// play streams the response, held to limits like a model's: a script is
// no more trusted than an endpoint.
func (rr *replayResponse) play(ctx context.Context, req Request, onDelta func(string) error) (Response, error) {
	var (
		resp      Response
		content   strings.Builder
		reasoning strings.Builder
		spent     = newBudget(req.Limits)
	)
	content.Grow(min(rr.textBytes, spent.limits.MaxResponseBytes))
	done := ctx.Done()
	finish := func() Response {
		resp.Content = content.String()
		resp.Reasoning = reasoning.String()
		resp.FinishReason = "stop"
		if len(resp.ToolCalls) > 0 {
			resp.FinishReason = "tool_calls"
		}
		return resp
	}
	for _, st := range rr.steps {
		switch {
		case st.repeat > 0:
			for range st.repeat {
				if st.delay > 0 && !pause(done, st.delay) {
					return finish(), ctx.Err()
				}
				// A non-blocking receive is far cheaper than ctx.Err() per
				// delta; done is nil for contexts that never end.
				select {
				case <-done:
					return finish(), ctx.Err()
				default:
				}
				if err := spent.spend(len(st.text)); err != nil {
					return finish(), err
				}
				content.WriteString(st.text)
				if err := onDelta(st.text); err != nil {
					return finish(), err
				}
			}
		case st.reasoning != "":
			if err := spent.spend(len(st.reasoning)); err != nil {
				return finish(), err
			}
			reasoning.WriteString(st.reasoning)
			if req.OnReasoning != nil {
				if err := req.OnReasoning(st.reasoning); err != nil {
					return finish(), err
				}
			}
		case st.call != nil:
			if err := spent.wholeCall(*st.call); err != nil {
				return finish(), err
			}
			resp.ToolCalls = append(resp.ToolCalls, *st.call)
		case st.usage != nil:
			resp.Usage = *st.usage
		case st.err != nil:
			e := *st.err
			return finish(), &e
		}
	}
	if err := ctx.Err(); err != nil {
		return finish(), err
	}
	return finish(), nil
}

// pause waits d unless done closes first; it reports whether d passed.
func pause(done <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-done:
		return false
	}
}
