// Package mcp connects a session to the Model Context Protocol servers its
// configuration names ([mcp_servers.NAME]) and offers their tools to the
// model as mcp__SERVER__TOOL. The protocol is the official Go SDK's; this
// package owns what scv adds around it: one process (or HTTP connection)
// per server per session, started in parallel without blocking the
// session; a state per server (starting, ready, failed, stopped) reported
// through Options.OnStatus; confinement of the process (its own process
// group and an environment marker its descendants inherit, swept when it
// stops; an environment without the user's secrets; stderr to a bounded
// log file); limits (startup and call timeouts, the output size, and byte
// bounds on one schema, one server's catalog and every server's in the
// process, see CatalogBudget); tools/list_changed coalesced into at most
// one refresh in flight that no turn waits for; calls routed by a table
// from the exposed name (routes), never by parsing it; a restart at most
// once per turn; and a Close that leaves nothing running.
package mcp
