package lsp

import (
	"context"
	"sort"
	"strings"

	"go.lsp.dev/protocol"
)

// Lifecycle methods of LSP that the server handles.
const (
	methodInitialize    = protocol.MethodInitialize
	methodInitialized   = protocol.MethodInitialized
	methodShutdown      = protocol.MethodShutdown
	methodExit          = protocol.MethodExit
	methodCancelRequest = protocol.MethodCancelRequest
)

// method is one row of the method table.
type method struct {
	handle func(ctx context.Context, c *conn, req *incoming) (any, error)
	// async handlers run off the read loop: they may wait (shutdown
	// waits for turns to end; session/start reads configuration and the
	// workspace's files, which a slow disk may hold) without holding up
	// the connection's other requests, and can be cancelled with
	// $/cancelRequest.
	async bool
}

// methodTable drives dispatch and the method list advertised at
// initialize, so neither can name what the other lacks. Notifications
// the server accepts are listed with a nil handler.
var methodTable map[string]method

func init() {
	methodTable = map[string]method{
		methodInitialize:       {handle: handleInitialize},
		methodInitialized:      {},
		methodShutdown:         {handle: handleShutdown, async: true},
		methodExit:             {},
		methodCancelRequest:    {},
		"scv/session/start":    {handle: handleSessionStart, async: true},
		"scv/session/attach":   {handle: handleSessionAttach},
		"scv/session/detach":   {handle: handleSessionDetach},
		"scv/session/list":     {handle: handleSessionList},
		"scv/session/close":    {handle: handleSessionClose},
		"scv/session/clear":    {handle: handleSessionClear},
		"scv/session/pause":    {handle: handleSessionPause},
		"scv/turn/start":       {handle: handleTurnStart},
		"scv/turn/cancel":      {handle: handleTurnCancel},
		"scv/queue/list":       {handle: handleQueueList},
		"scv/queue/update":     {handle: handleQueueUpdate},
		"scv/queue/move":       {handle: handleQueueMove},
		"scv/queue/remove":     {handle: handleQueueRemove},
		"scv/approval/resolve": {handle: handleApprovalResolve},
		"scv/daemon/status":    {handle: handleDaemonStatus},
	}
}

// AdvertisedMethods lists the scv/* requests dispatch serves, sorted.
func AdvertisedMethods() []string {
	var out []string
	for name, m := range methodTable {
		if strings.HasPrefix(name, "scv/") && m.handle != nil {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// HandledMethods lists every method and notification the server accepts,
// sorted: what docs/protocol.md must document.
func HandledMethods() []string {
	out := make([]string, 0, len(methodTable))
	for name := range methodTable {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}
