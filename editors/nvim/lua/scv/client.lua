-- The connection to `scv lsp`, through Neovim's own LSP client: framing,
-- ids and process handling stay Neovim's; this module adds what scv needs on
-- top — requests held until `initialize` has answered, a protocol version
-- check, handlers for every scv notification, and callbacks that always run
-- once even when the server dies mid-request.
local compat = require("scv.compat")
local protocol = require("scv.protocol")

local M = {}

local Client = {}
Client.__index = Client

---@param o table
---  cmd string[], env table|nil, root_dir string,
---  on_notification fun(method, params), on_ready fun(info), on_exit fun(code, signal, expected),
---  log fun(level, msg), anchor fun(): integer
function M.new(o)
  return setmetatable({
    o = o,
    id = nil,
    lsp = nil,
    ready = false,
    info = nil,
    pending = {},
    inflight = {},
    next_token = 0,
    stopping = false,
  }, Client)
end

function Client:is_running()
  return self.id ~= nil
end

function Client:_fail_all(message)
  local err = { code = protocol.CLIENT_ERROR, message = message }
  local pending, inflight = self.pending, self.inflight
  self.pending, self.inflight = {}, {}
  for _, p in ipairs(pending) do
    p.cb(err, nil)
  end
  for _, cb in pairs(inflight) do
    cb(err, nil)
  end
end

function Client:_handlers()
  local handlers = {}
  for _, method in ipairs(protocol.notifications) do
    handlers[method] = function(_, params)
      self.o.on_notification(method, params or {})
    end
  end
  local show = vim.lsp.handlers["window/showMessage"]
  handlers["window/showMessage"] = function(err, params, ctx, cfg)
    if params and params.message then
      self.o.log("warn", "server: " .. params.message)
    end
    if show then
      return show(err, params, ctx, cfg)
    end
  end
  handlers["window/logMessage"] = function(_, params)
    if params and params.message then
      self.o.log("info", "server: " .. params.message)
    end
  end
  return handlers
end

--- Start the server process; on_ready runs once initialize has answered.
---@return boolean ok, string|nil err
function Client:start()
  if self.id then
    return true
  end
  local cmd = self.o.cmd
  if vim.fn.executable(cmd[1]) ~= 1 then
    return false, string.format("scv: the server command '%s' is not executable (set `cmd` in setup())", cmd[1])
  end
  self.ready, self.info, self.stopping = false, nil, false
  local config = {
    name = "scv",
    cmd = cmd,
    cmd_env = self.o.env,
    root_dir = self.o.root_dir,
    init_options = { scv = { protocolVersion = protocol.VERSION } },
    handlers = self:_handlers(),
    on_init = function(client, result)
      self:_on_init(client, result)
    end,
    on_exit = function(code, signal)
      -- on 0.7 this runs in the process callback, outside the main loop
      vim.schedule(function()
        self:_on_exit(code, signal)
      end)
    end,
  }
  local ok, id = pcall(compat.start_client, config, self.o.anchor)
  if not ok or id == nil then
    return false, string.format("scv: could not start %s: %s", table.concat(cmd, " "), tostring(id))
  end
  self.id = id
  self.o.log("info", "started " .. table.concat(cmd, " "))
  return true
end

function Client:_on_init(client, result)
  self.lsp = client
  local caps = result and result.capabilities or {}
  local scv = caps.experimental and caps.experimental.scv or nil
  self.info = {
    server = result and result.serverInfo or {},
    scv = scv or {},
  }
  local version = scv and scv.protocolVersion
  if version ~= protocol.VERSION then
    local msg = string.format(
      "scv: the server speaks protocol version %s; this plugin speaks %d",
      tostring(version),
      protocol.VERSION
    )
    self.o.log("error", msg)
    self:_fail_all(msg)
    self:stop()
    return
  end
  self.ready = true
  self.o.log(
    "info",
    string.format(
      "initialized %s %s (protocol %d, daemon %s)",
      tostring(self.info.server.name),
      tostring(self.info.server.version),
      version,
      tostring(self.info.scv.daemon)
    )
  )
  local pending = self.pending
  self.pending = {}
  for _, p in ipairs(pending) do
    self:_send(p.method, p.params, p.cb)
  end
  self.o.on_ready(self.info)
end

function Client:_on_exit(code, signal)
  local expected = self.stopping
  self.id, self.lsp, self.ready = nil, nil, false
  self:_fail_all(string.format("scv: the server exited (code %s, signal %s)", tostring(code), tostring(signal)))
  self.o.log(expected and "info" or "warn", string.format("server exited with code %s, signal %s", tostring(code), tostring(signal)))
  self.o.on_exit(code, signal, expected)
end

function Client:_send(method, params, cb)
  self.next_token = self.next_token + 1
  local token = self.next_token
  local done = false
  local function once(err, result)
    if done then
      return
    end
    done = true
    self.inflight[token] = nil
    cb(err, result)
  end
  self.inflight[token] = once
  local ok, sent = pcall(compat.call, self.lsp, "request", method, params, function(err, result)
    once(err, result)
  end)
  if not ok or not sent then
    once({ code = protocol.CLIENT_ERROR, message = "scv: the server is not running" }, nil)
  end
end

--- Send a request; cb(err, result) runs exactly once, in the main loop.
---@param method string
---@param params table|nil
---@param cb fun(err: table|nil, result: any)
function Client:request(method, params, cb)
  if not self.id then
    cb({ code = protocol.CLIENT_ERROR, message = "scv: the server is not running" }, nil)
    return
  end
  if not self.ready then
    self.pending[#self.pending + 1] = { method = method, params = params, cb = cb }
    return
  end
  self:_send(method, params, cb)
end

--- Whether the server advertised this method at initialize (true while
--- that is not known yet: the request then says itself if it is not served).
function Client:serves(method)
  local methods = self.info and self.info.scv and self.info.scv.methods
  if type(methods) ~= "table" then
    return true
  end
  return vim.tbl_contains(methods, method)
end

--- Stop the server (shutdown, then exit).
function Client:stop()
  if not self.id then
    return
  end
  self.stopping = true
  local client = self.lsp or vim.lsp.get_client_by_id(self.id)
  if client then
    pcall(compat.call, client, "stop")
  end
end

return M
