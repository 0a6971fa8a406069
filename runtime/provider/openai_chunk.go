package provider

import (
	"encoding/json"

	openai "github.com/sashabaranov/go-openai"
)

// streamChunk is one event of a streamed completion, read with our own
// type rather than go-openai's: servers name the reasoning text
// differently (DeepSeek and older vLLM reasoning_content, Ollama, newer
// vLLM and OpenRouter reasoning), and go-openai knows only the first.
type streamChunk struct {
	Choices []streamChoice `json:"choices"`
	Usage   *openai.Usage  `json:"usage"`
}

type streamChoice struct {
	Index        int         `json:"index"`
	FinishReason string      `json:"finish_reason"`
	Delta        streamDelta `json:"delta"`
}

type streamDelta struct {
	Content          string            `json:"content"`
	Refusal          string            `json:"refusal"`
	ReasoningContent string            `json:"reasoning_content"`
	Reasoning        string            `json:"reasoning"`
	ToolCalls        []openai.ToolCall `json:"tool_calls"`
}

// reasoning is the delta's reasoning text. A server that sends both names
// (vLLM during its rename) sends the same text twice, so one is taken.
func (d streamDelta) reasoning() string {
	if d.ReasoningContent != "" {
		return d.ReasoningContent
	}
	return d.Reasoning
}

// recvChunk reads the next event of the stream.
func recvChunk(stream *openai.ChatCompletionStream) (streamChunk, error) {
	var chunk streamChunk
	raw, err := stream.RecvRaw()
	if err != nil {
		return chunk, err
	}
	err = json.Unmarshal(raw, &chunk)
	return chunk, err
}
