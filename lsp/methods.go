package lsp

import (
	"context"
	"sort"
	"strings"

	"go.lsp.dev/protocol"

	"scv/lsp/schema"
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
	// passEvents lets the connection's events flow while the handler runs
	// instead of holding them behind its reply: shutdown waits for the
	// turns' terminal events, which the client must see first.
	passEvents bool
	// largeResult: the result may be as large as a server frame, so such
	// handlers of one connection take turns, each once the outbound queue
	// has room (conn.awaitLargeTurn).
	largeResult bool
}

// methodTable drives dispatch and the method list advertised at
// initialize, so neither can name what the other lacks. Notifications
// the server accepts are listed with a nil handler.
var methodTable map[string]method

func init() {
	methodTable = map[string]method{
		methodInitialize:             {handle: handleInitialize},
		methodInitialized:            {},
		methodShutdown:               {handle: handleShutdown, async: true, passEvents: true},
		methodExit:                   {},
		methodCancelRequest:          {},
		schema.MethodSessionStart:    {handle: handleSessionStart, async: true},
		schema.MethodSessionAttach:   {handle: handleSessionAttach},
		schema.MethodSessionDetach:   {handle: handleSessionDetach},
		schema.MethodSessionList:     {handle: handleSessionList},
		schema.MethodSessionClose:    {handle: handleSessionClose},
		schema.MethodSessionClear:    {handle: handleSessionClear},
		schema.MethodSessionPause:    {handle: handleSessionPause},
		schema.MethodSessionRename:   {handle: handleSessionRename},
		schema.MethodSessionDelete:   {handle: handleSessionDelete},
		schema.MethodSessionFork:     {handle: handleSessionFork, async: true},
		schema.MethodTurnStart:       {handle: handleTurnStart},
		schema.MethodTurnCancel:      {handle: handleTurnCancel},
		schema.MethodQueueList:       {handle: handleQueueList},
		schema.MethodQueueUpdate:     {handle: handleQueueUpdate},
		schema.MethodQueueMove:       {handle: handleQueueMove},
		schema.MethodQueueRemove:     {handle: handleQueueRemove},
		schema.MethodApprovalResolve: {handle: handleApprovalResolve},
		schema.MethodDaemonStatus:    {handle: handleDaemonStatus},
		schema.MethodMcpList:         {handle: handleMcpList},
		schema.MethodSkillList:       {handle: handleSkillList},
		schema.MethodTurnSteer:       {handle: handleTurnSteer},
		// configure reads the workspace's project file (its policy rule).
		schema.MethodSessionConfigure: {handle: handleSessionConfigure, async: true},
		// A provider's model list may be megabytes of ids.
		schema.MethodModelList:   {handle: handleModelList, async: true, largeResult: true},
		schema.MethodTurnChanges: {handle: handleTurnChanges, async: true, largeResult: true},
		schema.MethodTurnRevert:  {handle: handleTurnRevert, async: true},
	}
}

// AdvertisedMethods lists the scv/* requests dispatch serves, sorted.
func AdvertisedMethods() []string {
	var out []string
	for name, m := range methodTable {
		if strings.HasPrefix(name, schema.Namespace) && m.handle != nil {
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
