-- The user-facing actions of the controller (one per :Scv sub-command).
-- Kept apart from controller.lua, which owns the connection and the
-- notification flow.
local protocol = require("scv.protocol")
local session_rows = require("scv.session_rows")
local prompt_view = require("scv.prompt_view")
local state_mod = require("scv.state")

local levels = vim.log.levels

return function(Controller)
  --- Send a prompt (or open the prompt buffer when text is empty).
  ---@param text string
  ---@param context table|nil context entries
  ---@param done fun(ok: boolean)|nil
  function Controller:prompt(text, context, done)
    done = done or function() end
    if text == nil or not text:match("%S") then
      prompt_view.open({
        context = context,
        submit_key = self.opts.keymaps.prompt.submit,
        submit = function(t, c, d)
          -- @path mentions written in the buffer attach too
          local ctx = vim.deepcopy(c or {})
          local root = require("scv.commands").workspace_root(self)
          local mentioned, _, err = require("scv.mentions").parse(t, root, function()
            return nil, "scv: @selection works in :Scv prompt {text}; from the prompt buffer use :'<,'>Scv prompt"
          end)
          if err then
            self:notify(err, levels.ERROR)
            d(false)
            return
          end
          local have = {}
          for _, item in ipairs(ctx) do
            have[item.uri] = true
          end
          for _, item in ipairs(mentioned) do
            if not have[item.uri] then
              ctx[#ctx + 1] = item
            end
          end
          self:prompt(t, #ctx > 0 and ctx or nil, d)
        end,
      })
      return
    end
    self:ensure_session(function(err, st)
      if err then
        self:notify(err, levels.ERROR)
        done(false)
        return
      end
      local view = self.views[st.session_id]
      if self.opts.transcript.open then
        view:show(self.opts.transcript.open)
      end
      -- a turn runs: steer it or queue the prompt (controller_turns.lua)
      self:_send_prompt(st, text, context, done)
    end)
  end

  --- scv/turn/start: starts a turn, or queues the prompt when one runs.
  function Controller:_start_turn(st, text, context, done)
    local view = self.views[st.session_id]
    local params = { sessionId = st.session_id, prompt = text, context = context }
    self:request(protocol.request.turn_start, params, function(rerr, result)
      if rerr then
        self:notify("scv: prompt not sent: " .. protocol.error_text(rerr), levels.ERROR)
        done(false)
        return
      end
      if result.status == "queued" then
        local entry = result.entry or {}
        if entry.queueId then
          st.queued_prompts[entry.queueId] = text
        end
        self:notify(
          string.format("scv: a turn is running; prompt queued at position %d", (tonumber(result.position) or 0) + 1),
          levels.INFO
        )
      elseif result.turnId then
        st:note_prompt(result.turnId, text)
        view:schedule()
      end
      done(true)
    end)
  end

  --- fn(state) when a session is current and its server runs; else say so.
  function Controller:with_session(what, fn)
    local st = self.state
    if st == nil or st.closed or not (self.client and self.client:is_running()) then
      self:notify("scv: no session to " .. what .. " (start one with :Scv prompt)", levels.WARN)
      return
    end
    fn(st)
  end

  function Controller:cancel()
    self:with_session("cancel", function(st)
      if st.turn_id == nil then
        self:notify("scv: no turn is running", levels.INFO)
        return
      end
      self:request(protocol.request.turn_cancel, { sessionId = st.session_id, turnId = st.turn_id }, function(err)
        if err then
          self:notify("scv: cancel failed: " .. protocol.error_text(err), levels.WARN)
        end
      end)
    end)
  end

  function Controller:pause(paused)
    self:with_session(paused and "pause" or "resume", function(st)
      self:request(protocol.request.session_pause, { sessionId = st.session_id, paused = paused }, function(err, result)
        if err then
          self:notify("scv: pause failed: " .. protocol.error_text(err), levels.ERROR)
          return
        end
        st.paused = type(result) == "table" and result.paused == true or paused
        local qv = self.queue_views[st.session_id]
        if qv then
          qv:refresh()
        end
        self:_status_changed()
        self:notify(st.paused and "scv: session paused (queued prompts wait)" or "scv: session resumed", levels.INFO)
      end)
    end)
  end

  function Controller:clear()
    self:with_session("clear", function(st)
      self:request(protocol.request.session_clear, { sessionId = st.session_id }, function(err)
        if err == nil then
          return
        end
        if protocol.error_code(err) == protocol.errors.turn_active then
          self:notify("scv: a turn is running; cancel it before clearing", levels.WARN)
        else
          self:notify("scv: clear failed: " .. protocol.error_text(err), levels.ERROR)
        end
      end)
    end)
  end

  function Controller:open_queue()
    self:ensure_session(function(err, st)
      if err then
        self:notify(err, levels.ERROR)
        return
      end
      self:_queue_view_for(st):show()
    end)
  end

  --- Show the transcript of the current session.
  function Controller:open()
    self:with_session("show", function(st)
      self.views[st.session_id]:show(self.opts.transcript.open or "vsplit")
    end)
  end

  --- Ask again for approvals the user dismissed.
  function Controller:approve()
    self:with_session("approve", function(st)
      if #st.approvals == 0 then
        self:notify("scv: no approval is pending", levels.INFO)
        return
      end
      self.approvals:retry(st.approvals)
    end)
  end

  --- Pick a session of the server (or take the one named) and attach to it.
  function Controller:pick_session(session_id)
    if session_id and session_id ~= "" then
      self:attach(session_id)
      return
    end
    self:request(protocol.request.session_list, nil, function(err, result)
      if err then
        self:notify("scv: could not list sessions: " .. protocol.error_text(err), levels.ERROR)
        return
      end
      local sessions = (result and result.sessions) or {}
      self.last_sessions = sessions
      if #sessions == 0 then
        self:notify("scv: the server has no session", levels.INFO)
        return
      end
      vim.ui.select(sessions, {
        prompt = "Attach to an scv session",
        kind = "scv.session",
        format_item = function(s)
          return string.format(
            "%s  %s  %s · %d queued · %d clients",
            s.sessionId,
            tostring(s.cwd),
            tostring(s.state),
            tonumber(s.queued) or 0,
            tonumber(s.clients) or 0
          )
        end,
      }, function(choice)
        if choice then
          vim.schedule(function()
            self:attach(choice.sessionId)
          end)
        end
      end)
    end)
  end

  --- Read scv/session/list page by page (newest first) up to
  --- session_rows.MAX_SESSIONS; cb(err, sessions).
  function Controller:list_sessions(cb)
    local sessions, seen = {}, {}
    local function page(cursor)
      local params = { limit = session_rows.PAGE_SIZE, cursor = cursor }
      self:request(protocol.request.session_list, params, function(err, result)
        if err then
          cb(err, nil)
          return
        end
        for _, s in ipairs((result and result.sessions) or {}) do
          if #sessions < session_rows.MAX_SESSIONS then
            sessions[#sessions + 1] = s
          end
        end
        local next_cursor = result and result.nextCursor
        -- a server that repeats a cursor ends the reading instead of looping
        if protocol.is_null(next_cursor) or next_cursor == "" or seen[next_cursor] or #sessions >= session_rows.MAX_SESSIONS then
          cb(nil, sessions)
          return
        end
        seen[next_cursor] = true
        page(next_cursor)
      end)
    end
    page(nil)
  end

  -- The first prompt this editor drew for a session, the picker's fallback label.
  local function first_prompt(self, session_id)
    local st = self.states[session_id]
    for _, b in ipairs(st and st.transcript.blocks or {}) do
      if b.kind == "turn" and b.prompt then
        return b.prompt
      end
    end
    return nil
  end

  --- :Scv sessions — pick any session, stored on disk or running, and open
  --- its whole transcript (or open the one named).
  function Controller:pick_stored_session(session_id)
    if session_id and session_id ~= "" then
      self:attach(session_id, { full = true })
      return
    end
    self:list_sessions(function(err, sessions)
      if err then
        self:notify("scv: could not list sessions: " .. protocol.error_text(err), levels.ERROR)
        return
      end
      self.last_sessions = sessions
      if #sessions == 0 then
        self:notify("scv: no stored session yet (start one with :Scv prompt)", levels.INFO)
        return
      end
      local now = os.time()
      vim.ui.select(sessions, {
        prompt = "Open an scv session",
        kind = "scv.session",
        format_item = function(s)
          return session_rows.format(s, now, first_prompt(self, s.sessionId))
        end,
      }, function(choice)
        if choice then
          vim.schedule(function()
            self:attach(choice.sessionId, { full = true, title = type(choice.title) == "string" and choice.title or nil })
          end)
        end
      end)
    end)
  end

  function Controller:status_table()
    local st = self.state
    if st == nil then
      return nil
    end
    return st:status()
  end

  --- A short status for statuslines: "idle", "running · 2 queued", "approval" …
  function Controller:status_text()
    return state_mod.format_status(self:status_table())
  end

  --- :Scv status — everything worth knowing, in one message.
  function Controller:describe()
    local lines = {}
    local info = self.client and self.client.info
    if self.client and self.client:is_running() and info then
      lines[#lines + 1] = string.format(
        "server: %s %s, protocol %s, %s",
        tostring(info.server.name),
        tostring(info.server.version),
        tostring(info.scv.protocolVersion),
        info.scv.daemon and "through the daemon" or "in-process"
      )
    elseif self.client and self.client:is_running() then
      lines[#lines + 1] = "server: starting"
    else
      lines[#lines + 1] = "server: not running"
    end
    local st = self.state
    if st then
      local s = st:status()
      lines[#lines + 1] = string.format("session: %s (%s)", st.session_id, tostring(st.cwd))
      lines[#lines + 1] = string.format(
        "state: %s%s%s",
        s.state,
        st.turn_id and (", turn " .. st.turn_id) or "",
        s.paused and ", paused" or ""
      )
      lines[#lines + 1] = string.format("queue: %d, pending approvals: %d", s.queued, #st.approvals)
      lines[#lines + 1] = string.format(
        "model: %s, approval policy: %s",
        tostring(st.model or "(server default)"),
        tostring(st.approval_policy or "(server default)")
      )
      lines[#lines + 1] = string.format("tokens used: %d input, %d output", st.usage.input, st.usage.output)
      if s.context_percent then
        lines[#lines + 1] = string.format("context: %d%% of %d tokens", s.context_percent, st.usage.context_max or st.context_max_tokens)
      end
      if st.plan then
        lines[#lines + 1] = "plan:"
        for _, l in ipairs(require("scv.transcript").plan_lines(st.plan.steps)) do
          if l ~= "" and not l:match("^#") then
            lines[#lines + 1] = "  " .. l
          end
        end
      end
      local mcp = st:mcp_lines()
      lines[#lines + 1] = #mcp == 0 and "MCP servers: none" or "MCP servers:"
      for _, l in ipairs(mcp) do
        lines[#lines + 1] = "  " .. l
      end
    else
      lines[#lines + 1] = "session: none"
    end
    return lines
  end

  function Controller:show_log()
    local header = { "scv log — Neovim's LSP log: " .. vim.lsp.get_log_path(), "" }
    return self.log:show(header)
  end

  --- Stop the server; the buffers stay.
  function Controller:stop()
    self.approvals:reset()
    if self.client then
      self.client:stop()
    end
    self.state = nil
    self:_status_changed()
  end
end
