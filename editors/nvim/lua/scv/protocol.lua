-- Names and constants of the scv wire protocol (version 1), shared by the
-- client, the state reducer and the tests. Pure: no editor calls.
local M = {}

M.VERSION = 1

-- Requests this client sends.
M.request = {
  session_start = "scv/session/start",
  session_attach = "scv/session/attach",
  session_detach = "scv/session/detach",
  session_list = "scv/session/list",
  session_close = "scv/session/close",
  session_clear = "scv/session/clear",
  session_pause = "scv/session/pause",
  session_rename = "scv/session/rename",
  session_delete = "scv/session/delete",
  session_fork = "scv/session/fork",
  turn_start = "scv/turn/start",
  turn_cancel = "scv/turn/cancel",
  queue_list = "scv/queue/list",
  queue_update = "scv/queue/update",
  queue_move = "scv/queue/move",
  queue_remove = "scv/queue/remove",
  approval_resolve = "scv/approval/resolve",
  daemon_status = "scv/daemon/status",
  mcp_list = "scv/mcp/list",
  turn_changes = "scv/turn/changes",
  turn_revert = "scv/turn/revert",
  turn_steer = "scv/turn/steer",
  session_configure = "scv/session/configure",
  model_list = "scv/model/list",
  skill_list = "scv/skill/list",
}

-- Every notification the server may send; the client registers a handler for
-- each one, so the list must stay complete.
M.notifications = {
  "scv/turn/started",
  "scv/assistant/delta",
  "scv/assistant/completed",
  "scv/assistant/reasoning",
  "scv/tool/output",
  "scv/plan/updated",
  "scv/session/usage",
  "scv/tool/proposed",
  "scv/tool/started",
  "scv/tool/completed",
  "scv/approval/requested",
  "scv/approval/resolved",
  "scv/context/compacted",
  "scv/turn/completed",
  "scv/turn/cancelled",
  "scv/turn/failed",
  "scv/queue/snapshot",
  "scv/queue/enqueued",
  "scv/queue/updated",
  "scv/queue/moved",
  "scv/queue/removed",
  "scv/queue/dequeued",
  "scv/session/paused",
  "scv/session/cleared",
  "scv/session/closed",
  "scv/session/renamed",
  "scv/session/restored",
  "scv/mcp/status",
  "scv/session/lagged",
  "scv/session/gap",
  "scv/turn/steered",
  "scv/session/configured",
  "scv/turn/changes",
  "scv/turn/reverted",
}

-- scv/session/attach's `replay` value that asks for the whole transcript
-- (from the session's file, not only the replay ring).
M.REPLAY_FULL = "full"

-- The scv/turn/failed code of a turn that was running when its owner stopped.
M.INTERRUPTED = "interrupted"

M.decisions = { "approve", "deny", "approve-session" }
-- scv/plan/updated step statuses
M.plan_statuses = { "pending", "in_progress", "completed" }
M.approval_policies = { "never", "on-risk", "always", "auto" }
M.daemon_modes = { "auto", "never", "required" }

-- Application error codes the client reacts to (carried in error.data.code).
M.errors = {
  queue_conflict = "queue_conflict",
  queue_not_found = "queue_not_found",
  approval_not_found = "approval_not_found",
  session_not_found = "session_not_found",
  turn_not_found = "turn_not_found",
  turn_active = "turn_active",
  session_owned = "session_owned",
}

-- The code of errors this client makes up itself (server not running, …).
M.CLIENT_ERROR = -32099

--- The machine-readable code of a JSON-RPC error object, if it has one.
---@param err table|nil
---@return string|nil
function M.error_code(err)
  if type(err) ~= "table" then
    return nil
  end
  local data = err.data
  if type(data) == "table" and type(data.code) == "string" then
    return data.code
  end
  return nil
end

--- A one-line human description of a JSON-RPC error object.
---@param err table|string|nil
---@return string
function M.error_text(err)
  if type(err) ~= "table" then
    return tostring(err)
  end
  local code = M.error_code(err)
  local msg = err.message or "error"
  if code then
    return string.format("%s (%s)", msg, code)
  end
  if err.code and err.code ~= M.CLIENT_ERROR then
    return string.format("%s (%s)", msg, tostring(err.code))
  end
  return msg
end

--- True when value is a JSON null as decoded by vim.json (or absent).
function M.is_null(value)
  return value == nil or value == vim.NIL
end

return M
