package provider

import "fmt"

// Defaults of Limits, and the fixed bound on tool calls.
const (
	// DefaultMaxResponseBytes is far above what a model writes in one
	// response, and low enough that an endpoint streaming without end
	// cannot grow the process without bound.
	DefaultMaxResponseBytes = 4 << 20
	// DefaultMaxToolCallBytes bounds one call's arguments: a write_file of
	// a large file fits; the frame carrying scv/tool/proposed does too.
	DefaultMaxToolCallBytes = 1 << 20
	// MaxToolCalls bounds the tool calls of one response. A call can
	// arrive without a byte of id, name or arguments, so the byte budget
	// alone would not bound their number.
	MaxToolCalls = 128
)

// Limits bound what a provider assembles for one Request; zero fields take
// the defaults. A provider stops reading a response the moment it would
// exceed them and returns an *Error with CodeResponseLimit.
type Limits struct {
	// MaxResponseBytes bounds a response's text (content and refusal) and
	// the ids, names and arguments of its tool calls, together.
	MaxResponseBytes int
	// MaxToolCallBytes bounds the arguments of each tool call.
	MaxToolCallBytes int
}

// WithDefaults returns l with every unset (zero or negative) field
// replaced by its default.
func (l Limits) WithDefaults() Limits {
	if l.MaxResponseBytes <= 0 {
		l.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if l.MaxToolCallBytes <= 0 {
		l.MaxToolCallBytes = DefaultMaxToolCallBytes
	}
	return l
}

// budget counts one response against its Limits while it is assembled;
// every provider charges it before it keeps a byte.
type budget struct {
	limits Limits
	used   int
	calls  int
}

func newBudget(l Limits) *budget { return &budget{limits: l.WithDefaults()} }

// spend charges n bytes of the response.
func (b *budget) spend(n int) error {
	if n > b.limits.MaxResponseBytes-b.used {
		return &Error{Code: CodeResponseLimit, Message: fmt.Sprintf(
			"the model's response exceeds %d bytes (provider.max_response_bytes); scv stopped reading it", b.limits.MaxResponseBytes)}
	}
	b.used += n
	return nil
}

// call charges one more tool call.
func (b *budget) call() error {
	if b.calls >= MaxToolCalls {
		return &Error{Code: CodeResponseLimit, Message: fmt.Sprintf(
			"the model's response has more than %d tool calls; scv stopped reading it", MaxToolCalls)}
	}
	b.calls++
	return nil
}

// arguments charges n more bytes of arguments to a call that has have.
func (b *budget) arguments(have, n int) error {
	if n > b.limits.MaxToolCallBytes-have {
		return &Error{Code: CodeResponseLimit, Message: fmt.Sprintf(
			"a tool call's arguments exceed %d bytes (provider.max_tool_call_bytes); scv stopped reading the response", b.limits.MaxToolCallBytes)}
	}
	return b.spend(n)
}

// wholeCall charges a call that arrives complete (a scripted one).
func (b *budget) wholeCall(c ToolCall) error {
	if err := b.call(); err != nil {
		return err
	}
	if err := b.spend(len(c.ID) + len(c.Name)); err != nil {
		return err
	}
	return b.arguments(0, len(c.Arguments))
}
