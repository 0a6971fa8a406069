package provider

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Defaults applied to zero-valued OpenAIOptions fields, and fixed limits.
const (
	DefaultOpenAIBaseURL  = "https://api.openai.com/v1"
	DefaultTimeout        = 10 * time.Minute
	DefaultIdleTimeout    = 2 * time.Minute
	DefaultMaxRetries     = 2
	DefaultRetryBaseDelay = 500 * time.Millisecond

	// MaxRetryDelay caps one backoff wait, including a server's Retry-After.
	MaxRetryDelay = 30 * time.Second
	// maxSSELineBytes bounds one line of the event stream.
	maxSSELineBytes = 8 << 20
	// maxErrorBodyBytes bounds how much of an error response is read.
	maxErrorBodyBytes = 64 << 10
	// maxErrorDetailBytes bounds how much of an unparseable error body is
	// quoted in an *Error message.
	maxErrorDetailBytes = 200
	// sseNonDataLineLimit is how many non-data lines (comments, keep-alives,
	// blank lines) may come between two events; go-openai's default of 300
	// is too low for servers that send keep-alive comments while a slow
	// model thinks.
	sseNonDataLineLimit = 100_000
)

// OpenAIOptions configures an OpenAI-compatible chat-completions endpoint.
// Zero values take the Default* constants.
type OpenAIOptions struct {
	BaseURL string // e.g. https://api.openai.com/v1 (the part before /chat/completions)
	APIKey  string // sent as a bearer token; empty sends none
	Model   string // used when Request.Model is empty
	Headers map[string]string
	// Timeout bounds one HTTP attempt from sending the request to the end
	// of the stream.
	Timeout time.Duration
	// IdleTimeout bounds the wait for the response headers and for each
	// read of the stream.
	IdleTimeout time.Duration
	// MaxRetries is the number of extra attempts after a retryable failure
	// (429, 5xx, connection error) that happened before any text was
	// delivered. Zero means DefaultMaxRetries; negative means none.
	MaxRetries     int
	RetryBaseDelay time.Duration
}

// OpenAI streams completions from an OpenAI-compatible endpoint.
type OpenAI struct {
	client      *openai.Client
	httpClient  *http.Client // the client's, for requests go-openai does not make
	baseURL     string       // without a trailing slash
	apiKey      string
	transport   *http.Transport
	model       string
	timeout     time.Duration
	idleTimeout time.Duration
	maxRetries  int
	baseDelay   time.Duration
	secrets     []string
}

// NewOpenAI validates opts and returns a ready provider.
func NewOpenAI(opts OpenAIOptions) (*OpenAI, error) {
	base := strings.TrimSpace(opts.BaseURL)
	if base == "" {
		base = DefaultOpenAIBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("provider base_url %q: want an http or https URL with a host", redactURL(base))
	}
	for name, value := range opts.Headers {
		if !validHeaderName(name) {
			return nil, fmt.Errorf("provider headers: invalid header name %q", name)
		}
		if strings.ContainsAny(value, "\r\n\x00") {
			return nil, fmt.Errorf("provider headers: value of %q contains a line break or NUL", name)
		}
	}
	if opts.Timeout < 0 {
		return nil, fmt.Errorf("provider timeout: must not be negative, got %s", opts.Timeout)
	}
	if opts.IdleTimeout < 0 {
		return nil, fmt.Errorf("provider idle timeout: must not be negative, got %s", opts.IdleTimeout)
	}
	if opts.RetryBaseDelay < 0 {
		return nil, fmt.Errorf("provider retry base delay: must not be negative, got %s", opts.RetryBaseDelay)
	}

	p := &OpenAI{
		model:       strings.TrimSpace(opts.Model),
		timeout:     orDefault(opts.Timeout, DefaultTimeout),
		idleTimeout: orDefault(opts.IdleTimeout, DefaultIdleTimeout),
		maxRetries:  opts.MaxRetries,
		baseDelay:   orDefault(opts.RetryBaseDelay, DefaultRetryBaseDelay),
	}
	switch {
	case p.maxRetries == 0:
		p.maxRetries = DefaultMaxRetries
	case p.maxRetries < 0:
		p.maxRetries = 0
	}
	if opts.APIKey != "" {
		p.secrets = append(p.secrets, opts.APIKey)
	}
	headers := make(map[string]string, len(opts.Headers))
	for name, value := range opts.Headers {
		headers[name] = value
		// Custom headers often carry credentials of their own.
		if len(value) >= minRedactLen {
			p.secrets = append(p.secrets, value)
		}
	}

	p.transport = http.DefaultTransport.(*http.Transport).Clone()
	cfg := openai.DefaultConfig(opts.APIKey)
	cfg.BaseURL = strings.TrimRight(base, "/")
	cfg.EmptyMessagesLimit = sseNonDataLineLimit
	p.httpClient = &http.Client{Transport: &headerTransport{base: p.transport, headers: headers}}
	cfg.HTTPClient = p.httpClient
	p.baseURL, p.apiKey = cfg.BaseURL, opts.APIKey
	p.client = openai.NewClientWithConfig(cfg)
	return p, nil
}

// CloseIdleConnections releases pooled connections; the provider stays usable.
func (p *OpenAI) CloseIdleConnections() { p.transport.CloseIdleConnections() }

// Stream sends req and streams the answer. Retryable failures are retried
// only while no text has reached onDelta, so the user never sees a chunk
// twice. On error the returned Response holds what was assembled so far.
// If ctx ends, Stream returns ctx.Err() unwrapped.
func (p *OpenAI) Stream(ctx context.Context, req Request, onDelta func(string) error) (Response, error) {
	model := req.Model
	if model == "" {
		model = p.model
	}
	if model == "" {
		return Response{}, &Error{Code: CodeError, Message: "no model configured"}
	}
	creq, err := buildChatRequest(model, req)
	if err != nil {
		return Response{}, &Error{Code: CodeError, Message: p.redact(err.Error())}
	}

	for attempt := 0; ; attempt++ {
		resp, res := p.attempt(ctx, creq, req.Limits, onDelta, req.OnReasoning)
		if res.err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return resp, ctx.Err()
		}
		if res.callbackErr {
			return resp, res.err
		}
		perr := p.classify(res)
		if res.delivered || attempt >= p.maxRetries || !retryable(perr) {
			return resp, perr
		}
		if err := sleepCtx(ctx, p.backoff(attempt, res.state.retryAfter)); err != nil {
			return Response{}, err
		}
	}
}

// backoff returns the wait before retry number attempt+1: exponential with
// jitter over its upper half, or the server's Retry-After when longer.
func (p *OpenAI) backoff(attempt int, retryAfter time.Duration) time.Duration {
	d := p.baseDelay << min(attempt, 16)
	if d <= 0 || d > MaxRetryDelay {
		d = MaxRetryDelay
	}
	d = d/2 + rand.N(d/2+1)
	if retryAfter > d {
		d = min(retryAfter, MaxRetryDelay)
	}
	return d
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if r <= ' ' || r >= 0x7f || strings.ContainsRune(`()<>@,;:\"/[]?={}`, r) {
			return false
		}
	}
	return true
}

// buildChatRequest converts the provider-neutral request to go-openai's.
func buildChatRequest(model string, req Request) (openai.ChatCompletionRequest, error) {
	creq := openai.ChatCompletionRequest{
		Model:         model,
		Stream:        true,
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
	}
	for i, m := range req.Messages {
		switch m.Role {
		case RoleSystem, RoleUser, RoleAssistant, RoleTool:
		default:
			return creq, fmt.Errorf("messages[%d]: unknown role %q", i, m.Role)
		}
		msg := openai.ChatCompletionMessage{
			Role:       string(m.Role),
			Content:    m.Content,
			ToolCallID: m.ToolCallID,
		}
		for _, tc := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, openai.ToolCall{
				ID:       tc.ID,
				Type:     openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: tc.Name, Arguments: tc.Arguments},
			})
		}
		creq.Messages = append(creq.Messages, msg)
	}
	for i, t := range req.Tools {
		if t.Name == "" {
			return creq, fmt.Errorf("tools[%d]: empty name", i)
		}
		params := t.Parameters
		if len(params) == 0 {
			params = []byte(`{"type":"object","properties":{}}`)
		}
		creq.Tools = append(creq.Tools, openai.Tool{
			Type: openai.ToolTypeFunction,
			Function: &openai.FunctionDefinition{
				Name:        t.Name,
				Description: t.Description,
				Parameters:  params,
			},
		})
	}
	return creq, nil
}
