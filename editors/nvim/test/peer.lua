-- "Another window" for the integration tests: a second `scv lsp` process
-- driven over its stdio with plain LSP framing, so a test can act on a
-- session the plugin is showing (attach, resolve an approval, send a
-- prompt) the way another editor would.
local framing = require("scv.framing")

local M = {}

local Peer = {}
Peer.__index = Peer

---@param t table the harness
---@param cmd string[]
---@param timeout_ms integer bound of every wait
function M.start(t, cmd, timeout_ms)
  local uv = vim.uv or vim.loop
  local self = setmetatable({
    t = t,
    timeout = timeout_ms,
    next_id = 0,
    answers = {},
    notifications = {},
    exited = false,
  }, Peer)
  self.stdin, self.stdout, self.stderr = uv.new_pipe(false), uv.new_pipe(false), uv.new_pipe(false)
  local handle, err = uv.spawn(cmd[1], {
    args = vim.list_slice(cmd, 2),
    stdio = { self.stdin, self.stdout, self.stderr },
  }, function(code)
    self.exit_code = code
    self.exited = true
  end)
  assert(handle, "spawn peer: " .. tostring(err))
  self.handle = handle
  local dec = framing.decoder()
  self.stdout:read_start(function(rerr, chunk)
    if rerr or not chunk then
      return
    end
    local msgs, derr = dec:feed(chunk)
    assert(derr == nil, derr)
    for _, m in ipairs(msgs) do
      if m.id ~= nil and m.method == nil then
        self.answers[m.id] = m
      elseif m.method then
        table.insert(self.notifications, m)
      end
    end
  end)
  self.stderr:read_start(function() end)
  local init = self:request("initialize", {
    processId = uv.getpid(),
    rootUri = vim.NIL,
    capabilities = vim.empty_dict(),
    initializationOptions = { scv = { protocolVersion = 1 } },
  })
  self:notify("initialized", vim.empty_dict())
  self.init = init
  return self
end

function Peer:notify(method, params)
  self.stdin:write(framing.encode({ jsonrpc = "2.0", method = method, params = params }))
end

--- Send a request and wait for its answer; returns result, error.
function Peer:request(method, params)
  self.next_id = self.next_id + 1
  local id = self.next_id
  self.stdin:write(framing.encode({ jsonrpc = "2.0", id = id, method = method, params = params }))
  self.t.wait(self.timeout, function()
    return self.answers[id] ~= nil
  end, "the peer's answer to " .. method)
  local m = self.answers[id]
  self.answers[id] = nil
  return m.result, m.error
end

--- Wait for a notification of this method matching pred; returns its params.
function Peer:wait_notification(method, pred)
  local found
  self.t.wait(self.timeout, function()
    for _, n in ipairs(self.notifications) do
      if n.method == method and (pred == nil or pred(n.params)) then
        found = n.params
        return true
      end
    end
    return false
  end, "the peer to receive " .. method)
  return found
end

function Peer:close()
  if not self.exited then
    pcall(self.request, self, "shutdown", nil)
    self:notify("exit", nil)
    self.t.wait(self.timeout, function()
      return self.exited
    end, "the peer to exit")
  end
  for _, p in ipairs({ self.stdin, self.stdout, self.stderr }) do
    if not p:is_closing() then
      p:close()
    end
  end
  if not self.handle:is_closing() then
    self.handle:close()
  end
  return self.exit_code
end

return M
