package provider_test

import (
	"context"
	"strings"
	"testing"

	"scv/internal/fakeopenai"
	"scv/runtime/provider"
)

// Both names servers give the reasoning text reach OnReasoning, apart from
// the answer, and the reasoning is not part of the Response's Content.
func TestOpenAIStreamsReasoning(t *testing.T) {
	for _, field := range []string{"reasoning_content", "reasoning"} {
		t.Run(field, func(t *testing.T) {
			srv := fakeopenai.New(t)
			srv.Enqueue(fakeopenai.Reply{Reasoning: []string{"let me ", "think"}, ReasoningField: field, Chunks: []string{"answer"}})
			p := newOpenAI(t, srv.URL(), nil)
			var reasoning []string
			req := simpleRequest()
			req.OnReasoning = func(s string) error {
				reasoning = append(reasoning, s)
				return nil
			}
			deltas, resp, err := collect(context.Background(), p, req)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(reasoning, "|"); got != "let me |think" {
				t.Errorf("reasoning deltas = %q", got)
			}
			if got := strings.Join(deltas, "|"); got != "answer" {
				t.Errorf("content deltas = %q", got)
			}
			if resp.Content != "answer" || resp.Reasoning != "let me think" {
				t.Errorf("response = %+v", resp)
			}
		})
	}
}

// Reasoning counts against the response limit: a model that reasons
// without end cannot make scv hold unbounded text.
func TestOpenAIReasoningCountsAgainstLimit(t *testing.T) {
	srv := fakeopenai.New(t)
	srv.Enqueue(fakeopenai.Reply{Reasoning: []string{strings.Repeat("r", 600), strings.Repeat("r", 600)}})
	p := newOpenAI(t, srv.URL(), nil)
	req := simpleRequest()
	req.Limits = provider.Limits{MaxResponseBytes: 1000}
	_, _, err := collect(context.Background(), p, req)
	wantCode(t, err, provider.CodeResponseLimit)
}

// A replay script streams reasoning lines to OnReasoning, apart from the
// answer, so offline sessions and editor tests can show thinking.
func TestReplayStreamsReasoning(t *testing.T) {
	r := mustReplay(t, `{"reasoning":"hmm, "}`+"\n"+`{"reasoning":"yes"}`+"\n"+`{"text":"answer"}`)
	var reasoning []string
	req := provider.Request{Messages: msgs(system, user), OnReasoning: func(s string) error {
		reasoning = append(reasoning, s)
		return nil
	}}
	deltas, resp, err := collect(context.Background(), r, req)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(reasoning, "|") != "hmm, |yes" || strings.Join(deltas, "|") != "answer" || resp.Reasoning != "hmm, yes" || resp.Content != "answer" {
		t.Fatalf("reasoning %q, deltas %q, response %+v", reasoning, deltas, resp)
	}
}
