-- A short conversation with a fresh `scv lsp` for :checkhealth: initialize,
-- scv/daemon/status, shutdown, exit. Runs its own process (never the
-- plugin's connection) and waits a bounded time.
local compat = require("scv.compat")
local framing = require("scv.framing")
local protocol = require("scv.protocol")

local M = {}

M.TIMEOUT_MS = 5000

--- Run the probe. Blocks (with vim.wait) for at most timeout_ms.
---@param cmd string[]
---@param env table|nil extra environment variables
---@param timeout_ms integer|nil
---@return table result { init = InitializeResult|nil, status = daemon status|nil, error = string|nil, exit_code = integer|nil }
function M.run(cmd, env, timeout_ms)
  timeout_ms = timeout_ms or M.TIMEOUT_MS
  local uv = compat.uv
  local res = {}
  local stdin, stdout, stderr = uv.new_pipe(false), uv.new_pipe(false), uv.new_pipe(false)
  local spawn_env = nil
  if env then
    local merged = vim.fn.environ()
    for k, v in pairs(env) do
      merged[k] = v
    end
    spawn_env = {}
    for k, v in pairs(merged) do
      spawn_env[#spawn_env + 1] = k .. "=" .. tostring(v)
    end
  end
  local exited = false
  local args = vim.list_slice(cmd, 2)
  local handle, perr = uv.spawn(cmd[1], { args = args, stdio = { stdin, stdout, stderr }, env = spawn_env }, function(code)
    res.exit_code = code
    exited = true
  end)
  if not handle then
    for _, p in ipairs({ stdin, stdout, stderr }) do
      p:close()
    end
    res.error = string.format("could not start %s: %s", cmd[1], tostring(perr))
    return res
  end
  local dec = framing.decoder()
  local stage = "initialize"
  local function send(msg)
    if not stdin:is_closing() then
      stdin:write(framing.encode(msg))
    end
  end
  stdout:read_start(function(err, chunk)
    if err or chunk == nil then
      return
    end
    local msgs, derr = dec:feed(chunk)
    if derr then
      res.error = derr
      stage = "done"
      return
    end
    for _, m in ipairs(msgs) do
      if m.id == 1 then
        if m.error then
          res.error = "initialize: " .. protocol.error_text(m.error)
          stage = "done"
          send({ jsonrpc = "2.0", method = "exit" })
        else
          res.init = m.result
          send({ jsonrpc = "2.0", method = "initialized", params = vim.empty_dict() })
          send({ jsonrpc = "2.0", id = 2, method = protocol.request.daemon_status })
          stage = "status"
        end
      elseif m.id == 2 then
        if m.error == nil then
          res.status = m.result
        else
          res.status_error = protocol.error_text(m.error)
        end
        send({ jsonrpc = "2.0", id = 3, method = "shutdown" })
        stage = "shutdown"
      elseif m.id == 3 then
        send({ jsonrpc = "2.0", method = "exit" })
        stage = "done"
      end
    end
  end)
  stderr:read_start(function() end)
  send({
    jsonrpc = "2.0",
    id = 1,
    method = "initialize",
    params = {
      processId = uv.getpid(),
      rootUri = vim.NIL,
      capabilities = vim.empty_dict(),
      clientInfo = { name = "scv.nvim checkhealth" },
      initializationOptions = { scv = { protocolVersion = protocol.VERSION } },
    },
  })
  local finished = vim.wait(timeout_ms, function()
    return exited
  end, 10)
  if not finished then
    res.error = res.error or string.format("no complete answer within %d ms (stage: %s)", timeout_ms, stage)
    handle:kill(15)
    vim.wait(1000, function()
      return exited
    end, 10)
  end
  for _, p in ipairs({ stdin, stdout, stderr }) do
    if not p:is_closing() then
      p:close()
    end
  end
  if not handle:is_closing() then
    handle:close()
  end
  return res
end

return M
