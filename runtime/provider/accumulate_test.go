package provider

import (
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

// Arguments streamed in many small pieces are assembled in linear time:
// the number of allocations grows with the logarithm of the size, where
// concatenating a string per piece allocates once per piece.
func TestToolArgumentsAreAssembledWithoutACopyPerPiece(t *testing.T) {
	const pieces = 20_000
	zero := 0
	var acc toolAccumulator
	allocs := testing.AllocsPerRun(1, func() {
		acc = toolAccumulator{}
		acc.add(openai.ToolCall{Index: &zero, ID: "c1", Function: openai.FunctionCall{Name: "write_file"}})
		for range pieces {
			acc.add(openai.ToolCall{Index: &zero, Function: openai.FunctionCall{Arguments: "x"}})
		}
	})
	if allocs > 200 {
		t.Errorf("%d pieces of arguments took %.0f allocations; want far fewer than one per piece", pieces, allocs)
	}
	calls := acc.calls()
	if len(calls) != 1 || calls[0].Arguments != strings.Repeat("x", pieces) {
		t.Fatalf("calls = %d, arguments of %d bytes", len(calls), len(calls[0].Arguments))
	}
}
