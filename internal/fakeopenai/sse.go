package fakeopenai

import (
	"encoding/json"
	"net/http"
	"time"
)

// argPieces is how many deltas a tool call's arguments are split over.
const argPieces = 3

// Wire shapes of a chat.completion.chunk event.
type chunk struct {
	ID      string    `json:"id"`
	Object  string    `json:"object"`
	Created int64     `json:"created"`
	Model   string    `json:"model"`
	Choices []choice  `json:"choices"`
	Usage   *usageOut `json:"usage"`
}

type choice struct {
	Index        int     `json:"index"`
	Delta        delta   `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

type delta struct {
	Role    string `json:"role,omitempty"`
	Content string `json:"content,omitempty"`
	// ReasoningContent and Reasoning are the two names servers give the
	// reasoning text.
	ReasoningContent string          `json:"reasoning_content,omitempty"`
	Reasoning        string          `json:"reasoning,omitempty"`
	ToolCalls        []toolCallDelta `json:"tool_calls,omitempty"`
}

type toolCallDelta struct {
	Index    int            `json:"index"`
	ID       string         `json:"id,omitempty"`
	Type     string         `json:"type,omitempty"`
	Function *functionDelta `json:"function,omitempty"`
}

type functionDelta struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

type usageOut struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// sseWriter writes events and flushes each one so the client sees it now.
type sseWriter struct {
	w       http.ResponseWriter
	flusher http.Flusher
	model   string
	created int64
	err     error
}

func (e *sseWriter) event(choices []choice, usage *usageOut) {
	if e.err != nil {
		return
	}
	if choices == nil {
		choices = []choice{}
	}
	data, err := json.Marshal(chunk{
		ID: "chatcmpl-fake", Object: "chat.completion.chunk", Created: e.created,
		Model: e.model, Choices: choices, Usage: usage,
	})
	if err != nil {
		e.err = err
		return
	}
	e.raw("data: " + string(data) + "\n\n")
}

func (e *sseWriter) raw(s string) {
	if e.err != nil {
		return
	}
	if _, err := e.w.Write([]byte(s)); err != nil {
		e.err = err
		return
	}
	e.flusher.Flush()
}

func (e *sseWriter) delta(d delta) { e.event([]choice{{Delta: d}}, nil) }

func (s *Server) stream(w http.ResponseWriter, r *http.Request, reply Reply, model string, includeUsage bool) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		writeError(w, http.StatusInternalServerError, "response writer cannot flush")
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	ev := &sseWriter{w: w, flusher: flusher, model: model, created: time.Now().Unix()}
	if reply.CloseImmediately {
		flusher.Flush()
		dropConnection(w)
		return
	}

	ev.delta(delta{Role: "assistant"})
	for _, text := range reply.Reasoning {
		if reply.ReasoningField == "reasoning" {
			ev.delta(delta{Reasoning: text})
		} else {
			ev.delta(delta{ReasoningContent: text})
		}
	}
	for i, text := range reply.Chunks {
		if reply.CloseAfterChunks > 0 && i == reply.CloseAfterChunks {
			break
		}
		ev.delta(delta{Content: text})
	}
	if reply.CloseAfterChunks > 0 {
		dropConnection(w)
		return
	}
	if reply.Hold != nil {
		select {
		case <-reply.Hold:
		case <-r.Context().Done():
			return
		case <-s.closing:
			return
		}
	}

	writeToolCalls(ev, reply)

	finish := reply.FinishReason
	if finish == "" {
		finish = "stop"
		if len(reply.ToolCalls) > 0 {
			finish = "tool_calls"
		}
	}
	ev.event([]choice{{Delta: delta{}, FinishReason: &finish}}, nil)
	if includeUsage && reply.Usage != nil {
		u := reply.Usage
		ev.event(nil, &usageOut{
			PromptTokens: u.InputTokens, CompletionTokens: u.OutputTokens,
			TotalTokens: u.InputTokens + u.OutputTokens,
		})
	}
	if !reply.OmitDone {
		ev.raw("data: [DONE]\n\n")
	}
}

// writeToolCalls sends each call's id and name first, then the pieces of
// all arguments round-robin, so a client must assemble by index.
func writeToolCalls(ev *sseWriter, reply Reply) {
	pieces := make([][]string, len(reply.ToolCalls))
	for i, tc := range reply.ToolCalls {
		ev.delta(delta{ToolCalls: []toolCallDelta{{
			Index: i, ID: tc.ID, Type: "function",
			Function: &functionDelta{Name: tc.Name},
		}}})
		pieces[i] = split(tc.Arguments, argPieces)
	}
	for p := range argPieces {
		for i := range reply.ToolCalls {
			if p < len(pieces[i]) && pieces[i][p] != "" {
				ev.delta(delta{ToolCalls: []toolCallDelta{{
					Index: i, Function: &functionDelta{Arguments: pieces[i][p]},
				}}})
			}
		}
	}
}

// split cuts s into at most n pieces of similar size, on rune boundaries.
func split(s string, n int) []string {
	runes := []rune(s)
	out := make([]string, 0, n)
	size := (len(runes) + n - 1) / n
	for start := 0; start < len(runes); start += size {
		out = append(out, string(runes[start:min(start+size, len(runes))]))
	}
	return out
}

// dropConnection closes the underlying connection without finishing the
// chunked body, so the client sees the stream break.
func dropConnection(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		return
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	_ = conn.Close()
}
