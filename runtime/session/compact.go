package session

import "scv/runtime/provider"

// Token estimates: about four bytes of English or code per token, plus a
// fixed cost per message for the role and separators.
const (
	bytesPerToken    = 4
	messageOverhead  = 4
	toolCallOverhead = 8
)

// systemPromptShare is the part of context.max_tokens the system prompt
// may take (1/systemPromptShare): it is sent with every request, and the
// rest is left for the conversation.
const systemPromptShare = 2

// systemPromptBytes is the system prompt's budget in bytes.
func systemPromptBytes(maxTokens int) int {
	return max(1, (maxTokens/systemPromptShare-messageOverhead)*bytesPerToken)
}

func estimateTokens(m provider.Message) int {
	n := messageOverhead + (len(m.Content)+bytesPerToken-1)/bytesPerToken
	for _, c := range m.ToolCalls {
		n += toolCallOverhead + (len(c.Name)+len(c.Arguments)+bytesPerToken-1)/bytesPerToken
	}
	return n
}

// compact drops the oldest history until system prompt and history fit in
// context.max_tokens. A group (an assistant message with tool calls and
// the results that answer them) is dropped whole, and the newest group is
// always kept so the model still sees the prompt it is answering.
func (s *Session) compact(t *turn) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	budget := s.cfg.Context.MaxTokens
	system := estimateTokens(provider.Message{Content: s.system})
	total := system
	for _, m := range s.history {
		total += estimateTokens(m)
	}
	if total <= budget {
		return nil
	}
	before := total
	cut := 0
	for cut < len(s.history) {
		end := groupEnd(s.history, cut)
		if end >= len(s.history) {
			break // the newest group stays
		}
		for _, m := range s.history[cut:end] {
			total -= estimateTokens(m)
		}
		cut = end
		if total <= budget {
			break
		}
	}
	if cut == 0 {
		return nil
	}
	history, base := s.history, s.marks.base
	s.history = append([]provider.Message(nil), s.history[cut:]...)
	s.marks.dropped(cut)
	// Refused (not stored), the cut is not made: a reload would not make it.
	return s.undoOnRefusal(ContextCompacted{t.id, before, total, cut}, func() {
		s.history, s.marks.base = history, base
	})
}

// groupEnd returns the index after the group that starts at i: a message
// and, when it calls tools, every tool result that follows it.
func groupEnd(history []provider.Message, i int) int {
	end := i + 1
	if len(history[i].ToolCalls) == 0 {
		return end
	}
	for end < len(history) && history[end].Role == provider.RoleTool {
		end++
	}
	return end
}
