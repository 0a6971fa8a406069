package lsp

import (
	"encoding/json"
	"errors"

	"go.lsp.dev/jsonrpc2"

	"scv/lsp/schema"
	"scv/runtime/session"
)

// Standard JSON-RPC and LSP error codes the server answers with.
const (
	codeParseError       jsonrpc2.Code = -32700
	codeInvalidRequest   jsonrpc2.Code = -32600
	codeMethodNotFound   jsonrpc2.Code = -32601
	codeInvalidParams    jsonrpc2.Code = -32602
	codeInternalError    jsonrpc2.Code = -32603
	codeNotInitialized   jsonrpc2.Code = -32002
	codeRequestCancelled jsonrpc2.Code = -32800
	codeApplication      jsonrpc2.Code = -32000
)

// Application data.code values that the lsp layer itself produces.
const (
	dataVersionMismatch = schema.CodeVersionMismatch
	dataFrameTooLarge   = schema.CodeFrameTooLarge
	dataTooManyRequests = schema.CodeTooManyRequests
	dataResponseLimit   = schema.CodeResponseLimit
)

// appError is a -32000 error with a machine-readable data.code.
func appError(code, message string) *jsonrpc2.Error {
	return withData(codeApplication, code, message)
}

func withData(c jsonrpc2.Code, code, message string) *jsonrpc2.Error {
	data, _ := json.Marshal(schema.ErrorData{Code: code})
	return &jsonrpc2.Error{Code: c, Message: message, Data: data}
}

func invalidParams(message string) *jsonrpc2.Error {
	return &jsonrpc2.Error{Code: codeInvalidParams, Message: message}
}

// toWire maps a handler error to the error object the client receives.
func toWire(err error) *jsonrpc2.Error {
	var wireErr *jsonrpc2.Error
	if errors.As(err, &wireErr) {
		return wireErr
	}
	var refused *session.Error
	if errors.As(err, &refused) {
		if refused.Code == session.CodeInvalidParams {
			return invalidParams(refused.Message)
		}
		return appError(string(refused.Code), refused.Message)
	}
	return &jsonrpc2.Error{Code: codeInternalError, Message: err.Error()}
}
