-- Ties the pieces together: one server connection, the current session's
-- state, its transcript and queue buffers, and the approval prompts. Every
-- user command lands here; every notification goes through the state reducer
-- and comes back as effects for the views.
local client_mod = require("scv.client")
local compat = require("scv.compat")
local config = require("scv.config")
local log_mod = require("scv.log")
local protocol = require("scv.protocol")
local queue_view = require("scv.queue_view")
local state_mod = require("scv.state")
local transcript_view = require("scv.transcript_view")

local M = {}

local Controller = {}
Controller.__index = Controller

local levels = vim.log.levels

---@param opts table resolved options (config.resolve)
function M.new(opts)
  local self = setmetatable({
    opts = opts,
    log = log_mod.new(config.MAX_LOG_LINES),
    client = nil,
    state = nil,
    states = {},
    views = {},
    queue_views = {},
    starting = nil,
    restarts = 0,
    anchor_buf = nil,
    last_sessions = {},
    last_status = "",
    exiting = false,
  }, Controller)
  -- Neovim stops every LSP client when it quits: that exit is no crash
  vim.api.nvim_create_autocmd("VimLeavePre", {
    group = vim.api.nvim_create_augroup("scv_controller", { clear = true }),
    callback = function()
      self.exiting = true
      if self.client then
        self.client.stopping = true
      end
      self:_stop_timers()
    end,
  })
  self:_init_approvals()
  return self
end

function Controller:notify(msg, level)
  level = level or levels.INFO
  self.log:add(level >= levels.ERROR and "error" or level >= levels.WARN and "warn" or "info", msg)
  vim.notify(msg, level)
end

function Controller:_stop_timers()
  for _, view in pairs(self.views) do
    view:dispose()
  end
  if self.status_timer then
    self.status_timer:stop()
    self.status_timer:close()
    self.status_timer = nil
  end
end

-- ── server ──────────────────────────────────────────────────────────────

function Controller:_anchor()
  if self.anchor_buf == nil or not vim.api.nvim_buf_is_valid(self.anchor_buf) then
    self.anchor_buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(self.anchor_buf, "scv://client")
  end
  return self.anchor_buf
end

--- Start the server unless it runs; requests made before it answered
--- `initialize` wait for it.
---@return boolean ok, string|nil err
function Controller:ensure_client()
  if self.client and self.client:is_running() then
    return true
  end
  local cmd, env = config.server_cmd(self.opts)
  self.client = client_mod.new({
    cmd = cmd,
    env = env,
    root_dir = vim.fn.getcwd(),
    anchor = function()
      return self:_anchor()
    end,
    log = function(level, msg)
      self.log:add(level, msg)
    end,
    on_notification = function(method, params)
      self:_on_notification(method, params)
    end,
    on_ready = function(info)
      self.server_info = info
    end,
    on_exit = function(code, signal, expected)
      self:_on_exit(code, signal, expected)
    end,
  })
  return self.client:start()
end

--- Send a request to the server, starting it if needed.
function Controller:request(method, params, cb)
  local ok, err = self:ensure_client()
  if not ok then
    cb({ code = protocol.CLIENT_ERROR, message = err }, nil)
    return
  end
  self.client:request(method, params, cb)
end

function Controller:_on_exit(code, signal, expected)
  self.approvals:reset()
  self.starting = nil
  local st = self.state
  if expected or self.exiting or st == nil then
    self.state = nil
    return
  end
  if self.restarts >= config.MAX_RESTARTS then
    self.state = nil
    self:notify(
      string.format("scv: the server exited (code %s); not restarting it again — the next command starts it", tostring(code)),
      levels.ERROR
    )
    return
  end
  self.restarts = self.restarts + 1
  self:notify(
    string.format(
      "scv: the server exited (code %s, signal %s); restarting it (%d/%d)",
      tostring(code),
      tostring(signal),
      self.restarts,
      config.MAX_RESTARTS
    ),
    levels.WARN
  )
  self.state = nil
  self:attach(st.session_id, { quiet_missing = true })
end

-- ── sessions ────────────────────────────────────────────────────────────

function Controller:_view_for(st)
  local view = self.views[st.session_id]
  if view == nil then
    local km = self.opts.keymaps.transcript
    view = transcript_view.new({
      session_id = st.session_id,
      model = st.transcript,
      interval_ms = self.opts.flush_interval_ms,
      follow = self.opts.transcript.follow,
      keymaps = km,
      actions = {
        cancel = function()
          self:cancel()
        end,
        prompt = function()
          self:prompt("", nil)
        end,
        queue = function()
          self:open_queue()
        end,
        diff = function()
          self:diff()
        end,
        undo = function()
          self:undo()
        end,
        close = function()
          pcall(vim.cmd, "close")
        end,
      },
    })
    self.views[st.session_id] = view
  elseif view.o.model ~= st.transcript then
    view:set_model(st.transcript)
  end
  return view
end

function Controller:_queue_view_for(st)
  local qv = self.queue_views[st.session_id]
  if qv == nil then
    qv = queue_view.new({
      session_id = st.session_id,
      request = function(method, params, cb)
        self:request(method, params, cb)
      end,
      get_state = function()
        return self.states[st.session_id]
      end,
      notify = function(msg, level)
        self:notify(msg, level)
      end,
      on_reloaded = function()
        self:_status_changed()
      end,
    })
    self.queue_views[st.session_id] = qv
  end
  return qv
end

function Controller:_make_current(st)
  if self.state ~= st then
    self.approvals:reset()
  end
  self.state = st
  self.states[st.session_id] = st
  local view = self:_view_for(st)
  view:schedule()
  self:_status_changed()
  self:_reconcile_approvals()
  return view
end

--- Run cb(err, state) once a session is current, starting one if needed.
function Controller:ensure_session(cb)
  if self.state and not self.state.closed and self.client and self.client:is_running() then
    cb(nil, self.state)
    return
  end
  if self.starting then
    table.insert(self.starting, cb)
    return
  end
  self.starting = { cb }
  local params = { cwd = vim.fn.getcwd(), model = self.opts.model, approvalPolicy = self.opts.approval_policy }
  self:request(protocol.request.session_start, params, function(err, snap)
    local waiters = self.starting or {}
    self.starting = nil
    local st
    if err == nil then
      st = state_mod.new(snap.sessionId)
      st:apply_snapshot(snap)
      self:_make_current(st)
      self.log:add("info", "session " .. tostring(snap.sessionId) .. " started in " .. tostring(snap.cwd))
    else
      err = "scv: could not start a session: " .. protocol.error_text(err)
    end
    for _, w in ipairs(waiters) do
      w(err, st)
    end
  end)
end

--- Attach to a session (also how a session is restored after a restart or
--- a lagged connection): replays what this editor has not drawn yet.
--- With o.full the server replays the whole transcript (a stored session is
--- loaded) into a fresh state, made once the reply arrives: the replay
--- follows the reply, so nothing is drawn twice or out of order.
---@param session_id string
---@param o table|nil quiet_missing: say less when the session is gone;
---  no_show: do not open the buffer; full: whole transcript; title: known title
function Controller:attach(session_id, o)
  o = o or {}
  local current = self.state
  if current and current.session_id ~= session_id and self.client and self.client:is_running() then
    self:request(protocol.request.session_detach, { sessionId = current.session_id }, function() end)
  end
  local st = self.states[session_id] or state_mod.new(session_id)
  local params
  if o.full then
    -- afterSeq 0 too, so a server without `replay` still sends its ring
    params = { sessionId = session_id, afterSeq = 0, replay = protocol.REPLAY_FULL }
  else
    self.states[session_id] = st
    params = { sessionId = session_id, afterSeq = st.seen_seq }
  end
  self:request(protocol.request.session_attach, params, function(err, snap)
    if err then
      if protocol.error_code(err) == protocol.errors.session_not_found then
        st.closed = true
        if self.state == st then
          self.state = nil
        end
        self:notify(
          o.quiet_missing and "scv: the session ended with the server; the next prompt starts a new one"
            or ("scv: no session " .. session_id),
          levels.WARN
        )
      else
        self:notify("scv: attach failed: " .. protocol.error_text(err), levels.ERROR)
      end
      return
    end
    if o.full then
      st = state_mod.new(session_id)
      self.states[session_id] = st
    end
    if o.title and o.title ~= "" and st.title == nil then
      st.title = o.title
    end
    st.closed = false
    st:apply_snapshot(snap, { replay = true })
    local view = self:_make_current(st)
    if not o.no_show then
      view:show(self.opts.transcript.open or "vsplit")
    end
    local qv = self.queue_views[session_id]
    if qv then
      qv:refresh()
    end
  end)
end

-- ── notifications ───────────────────────────────────────────────────────

-- Statusline updates are coalesced like transcript redraws: a redraw in the
-- middle of a burst of notifications would run while more are waiting.
function Controller:_status_changed()
  if self.status_timer == nil then
    self.status_timer = compat.uv.new_timer()
  end
  if self.status_scheduled then
    return
  end
  self.status_scheduled = true
  self.status_timer:start(
    self.opts.flush_interval_ms,
    0,
    vim.schedule_wrap(function()
      self.status_scheduled = false
      local text = self:status_text()
      if text ~= self.last_status then
        self.last_status = text
        pcall(vim.api.nvim_exec_autocmds, "User", { pattern = "ScvStatus", modeline = false })
        pcall(vim.cmd, "redrawstatus")
      end
    end)
  )
end

function Controller:_on_notification(method, params)
  local st = self.states[params.sessionId]
  if st == nil then
    return
  end
  local fx = st:apply(method, params)
  if st ~= self.state then
    return
  end
  for _, f in ipairs(fx) do
    if f.kind == "transcript" then
      self.views[st.session_id]:schedule()
    elseif f.kind == "queue" then
      local qv = self.queue_views[st.session_id]
      if qv then
        qv:refresh()
      end
      self:_status_changed()
    elseif f.kind == "run" then
      self:_status_changed()
    elseif f.kind == "approval_requested" then
      self:_reconcile_approvals()
      self:_status_changed()
    elseif f.kind == "approval_resolved" then
      self.approvals:resolved(f.approval_id, f.decision)
      self:_reconcile_approvals()
      self:_status_changed()
    elseif f.kind == "resync" then
      self:attach(st.session_id, { no_show = true })
    elseif f.kind == "closed" then
      self.approvals:reset()
      self:notify("scv: session " .. st.session_id .. " was closed", levels.INFO)
      self:_status_changed()
    end
  end
end

require("scv.controller_approvals")(Controller)
require("scv.controller_commands")(Controller)
require("scv.controller_turns")(Controller)
require("scv.controller_changes")(Controller)

return M
