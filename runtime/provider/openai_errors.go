package provider

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	openai "github.com/sashabaranov/go-openai"
)

// minRedactLen is the shortest header value treated as a possible secret;
// shorter values would mangle messages without protecting anything.
const minRedactLen = 8

// classify turns the failure of one attempt into an *Error whose message is
// free of the API key and custom header values.
func (p *OpenAI) classify(res attemptResult) *Error {
	e := p.classifyRaw(res)
	e.Message = p.redact(e.Message)
	return e
}

func (p *OpenAI) classifyRaw(res attemptResult) *Error {
	err := res.err
	var own *Error
	if errors.As(err, &own) {
		return own // the attempt's own verdict, such as CodeResponseLimit
	}
	switch {
	case errors.Is(res.cause, errAttemptTimeout):
		return &Error{Code: CodeTimeout, Message: fmt.Sprintf("no complete answer within %s", p.timeout)}
	case errors.Is(res.cause, errIdleTimeout):
		return &Error{Code: CodeTimeout, Message: fmt.Sprintf("no data from the provider for %s", p.idleTimeout)}
	}

	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		if apiErr.HTTPStatusCode > 0 {
			return statusError(apiErr.HTTPStatusCode, apiErr.Message)
		}
		// An error event inside an otherwise successful stream.
		return &Error{Code: CodeError, Message: "error in stream: " + apiErr.Message}
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		return statusError(reqErr.HTTPStatusCode, bodySnippet(reqErr.Body))
	}

	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.Is(err, errMissingDone):
		return &Error{Code: CodeError, Message: "the stream ended without data: [DONE]; the answer may be incomplete (does the endpoint support streaming?)"}
	case errors.Is(err, errLineTooLong):
		return &Error{Code: CodeError, Message: fmt.Sprintf("a stream line is longer than %d bytes", maxSSELineBytes)}
	case errors.Is(err, openai.ErrTooManyEmptyStreamMessages):
		return &Error{Code: CodeError, Message: "the stream sent too many lines without data"}
	case errors.As(err, &syntaxErr), errors.As(err, &typeErr):
		return &Error{Code: CodeError, Message: "malformed stream data: " + err.Error()}
	}

	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return &Error{Code: CodeTimeout, Message: "network timeout: " + err.Error()}
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		return &Error{Code: CodeUnavailable, Message: "connection refused: " + err.Error()}
	}
	var opErr *net.OpError
	var urlErr *url.Error
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.As(err, &opErr) || errors.As(err, &urlErr) {
		return &Error{Code: CodeUnavailable, Message: "connection failed: " + err.Error()}
	}
	return &Error{Code: CodeError, Message: err.Error()}
}

func statusError(status int, detail string) *Error {
	if detail == "" {
		detail = http.StatusText(status)
	}
	code := CodeError
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		code = CodeAuth
	case status == http.StatusTooManyRequests:
		code = CodeRateLimited
	case status == http.StatusRequestTimeout:
		code = CodeTimeout
	case status >= 500:
		code = CodeUnavailable
	}
	return &Error{Code: code, Status: status, Message: detail}
}

func bodySnippet(body []byte) string {
	s := strings.ToValidUTF8(strings.TrimSpace(string(body)), "?")
	if len(s) > maxErrorDetailBytes {
		s = strings.ToValidUTF8(s[:maxErrorDetailBytes], "") + "…"
	}
	return s
}

// retryable reports whether another attempt may succeed.
func retryable(e *Error) bool {
	return e.Code == CodeRateLimited || e.Code == CodeUnavailable
}

// redact removes every configured secret from s.
func (p *OpenAI) redact(s string) string {
	for _, secret := range p.secrets {
		s = strings.ReplaceAll(s, secret, "[redacted]")
	}
	return s
}

// redactURL hides a password embedded in a URL.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable URL)"
	}
	return u.Redacted()
}
