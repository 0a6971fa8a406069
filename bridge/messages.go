package bridge

import (
	"encoding/json"
	"fmt"

	"go.lsp.dev/protocol"
)

// JSON-RPC and LSP constants the bridge uses when it speaks for itself.
const (
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeApplication    = -32000

	// ErrorCodeFrameTooLarge is data.code of the answer to an oversized frame.
	ErrorCodeFrameTooLarge = "frame_too_large"
	// ErrorCodeResponseLimit is data.code of the answer that replaces a
	// daemon reply over the bridge's maxServerFrameBytes.
	ErrorCodeResponseLimit = "response_limit"
	// ErrorCodeTooManyConnections names the refusal of a connection over
	// MaxConnections in the daemon's log and the showMessage text.
	ErrorCodeTooManyConnections = "too_many_connections"
)

// notification encodes a JSON-RPC notification body. Params are plain
// values built here, so marshalling cannot fail.
func notification(method string, params any) []byte {
	body, err := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		Params  any    `json:"params"`
	}{"2.0", method, params})
	if err != nil {
		panic(fmt.Sprintf("encode %s: %v", method, err))
	}
	return body
}

// showMessage and logMessage speak LSP's own notifications, with its types.
func showMessage(typ protocol.MessageType, text string) []byte {
	return notification(protocol.MethodWindowShowMessage, protocol.ShowMessageParams{Type: typ, Message: text})
}

func logMessage(typ protocol.MessageType, text string) []byte {
	return notification(protocol.MethodWindowLogMessage, protocol.LogMessageParams{Type: typ, Message: text})
}

// frameTooLargeAnswer is the error answer to a frame that was skipped unread.
// Its id is null because the id was in the part nobody read.
func frameTooLargeAnswer(length int64, limit int) []byte {
	body, err := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      nil,
		"error": map[string]any{
			"code":    codeInvalidRequest,
			"message": frameTooLargeText(length, limit),
			"data":    map[string]any{"code": ErrorCodeFrameTooLarge, "limit": limit},
		},
	})
	if err != nil {
		panic(fmt.Sprintf("encode frame_too_large: %v", err))
	}
	return body
}

func frameTooLargeText(length int64, limit int) string {
	if length < 0 {
		return fmt.Sprintf("frame exceeds maxClientFrameBytes (%d)", limit)
	}
	return fmt.Sprintf("frame of %d bytes exceeds maxClientFrameBytes (%d)", length, limit)
}
