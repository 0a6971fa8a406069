-- Acting on a live session (issue 12): steer the running turn or queue the
-- prompt, switch the model or the approval policy. User actions of the
-- controller, like controller_commands.lua.
local protocol = require("scv.protocol")

local levels = vim.log.levels

local M = {}

M.PROMPT_CHOICES = {
  { label = "Send now (steer the running turn)", mode = "steer" },
  { label = "Queue (a new turn after this one)", mode = "queue" },
}

local function install(Controller)
  local function serves(self, method)
    local c = self.client
    return c ~= nil and (c.serves == nil or c:serves(method))
  end

  --- A prompt for the current session: while a turn runs, steer it or queue
  --- the prompt (as prompt_while_running says, asking when it is "ask").
  --- A prompt with context is queued: a steer carries text only.
  function Controller:_send_prompt(st, text, context, done)
    local running = st.run == "running" and st.turn_id ~= nil
    if not running or context ~= nil or not serves(self, protocol.request.turn_steer) then
      self:_start_turn(st, text, context, done)
      return
    end
    local mode = self.opts.prompt_while_running
    if mode == "queue" then
      self:_start_turn(st, text, context, done)
      return
    end
    if mode == "steer" then
      self:_steer(st, st.turn_id, text, done)
      return
    end
    local turn_id = st.turn_id
    vim.ui.select(M.PROMPT_CHOICES, {
      prompt = "scv: a turn is running",
      kind = "scv.prompt_mode",
      format_item = function(c)
        return c.label
      end,
    }, function(choice)
      vim.schedule(function()
        if choice == nil then
          self:notify("scv: prompt not sent", levels.INFO)
          done(false)
        elseif choice.mode == "steer" then
          self:_steer(st, turn_id, text, done)
        else
          self:_start_turn(st, text, context, done)
        end
      end)
    end)
  end

  --- scv/turn/steer; a turn that ended meanwhile (turn_not_found) gets the
  --- prompt as a new turn (queued if another one runs by then).
  function Controller:_steer(st, turn_id, text, done)
    local params = { sessionId = st.session_id, turnId = turn_id, prompt = text }
    self:request(protocol.request.turn_steer, params, function(err)
      if err == nil then
        done(true)
        return
      end
      if protocol.error_code(err) == protocol.errors.turn_not_found then
        self:notify("scv: the turn ended before the steer arrived; the prompt goes to the queue", levels.INFO)
        self:_start_turn(st, text, nil, done)
        return
      end
      self:notify("scv: steer failed: " .. protocol.error_text(err), levels.ERROR)
      done(false)
    end)
  end

  --- :Scv steer {prompt} — add a message to the running turn (no turn: a
  --- new one).
  function Controller:steer(text, done)
    done = done or function() end
    if text == nil or not text:match("%S") then
      self:notify("scv: usage: :Scv steer {prompt}", levels.WARN)
      done(false)
      return
    end
    self:with_session("steer", function(st)
      if st.run ~= "running" or st.turn_id == nil then
        self:notify("scv: no turn is running; the prompt starts one", levels.INFO)
        self:_start_turn(st, text, nil, done)
        return
      end
      self:_steer(st, st.turn_id, text, done)
    end)
  end

  -- scv/session/configure with one setting; the reply holds what is in force.
  local function configure(self, st, params, what)
    params.sessionId = st.session_id
    self:request(protocol.request.session_configure, params, function(err, result)
      if err then
        self:notify(string.format("scv: could not set the %s: %s", what, protocol.error_text(err)), levels.ERROR)
        return
      end
      result = type(result) == "table" and result or {}
      st:set_configuration(result.model, result.approvalPolicy)
      if self.state == st then
        self:_status_changed()
      end
      self:notify(
        string.format("scv: model %s · approval policy %s", tostring(st.model), tostring(st.approval_policy)),
        levels.INFO
      )
    end)
  end

  --- :Scv model [id] — switch the session's model (picked from scv/model/list).
  function Controller:pick_model(model)
    self:with_session("configure", function(st)
      if model and model ~= "" then
        configure(self, st, { model = model }, "model")
        return
      end
      self:request(protocol.request.model_list, { sessionId = st.session_id }, function(err, result)
        if err then
          self:notify("scv: could not list models: " .. protocol.error_text(err), levels.ERROR)
          return
        end
        result = type(result) == "table" and result or {}
        if type(result.error) == "string" and result.error ~= "" then
          self:notify("scv: the provider's model list failed: " .. result.error, levels.WARN)
        end
        local models = type(result.models) == "table" and result.models or {}
        self.last_models = models
        if #models == 0 then
          self:notify("scv: no model to choose from", levels.WARN)
          return
        end
        vim.ui.select(models, {
          prompt = "Model for this session (now " .. tostring(st.model) .. ")",
          kind = "scv.model",
          format_item = function(m)
            return string.format("%s%s  (%s)", m.id == st.model and "● " or "", tostring(m.id), tostring(m.source))
          end,
        }, function(choice)
          if choice then
            vim.schedule(function()
              configure(self, st, { model = choice.id }, "model")
            end)
          end
        end)
      end)
    end)
  end

  --- :Scv policy [policy] — switch the session's approval policy.
  function Controller:pick_policy(policy)
    self:with_session("configure", function(st)
      if policy and policy ~= "" then
        configure(self, st, { approvalPolicy = policy }, "approval policy")
        return
      end
      vim.ui.select(protocol.approval_policies, {
        prompt = "Approval policy for this session (now " .. tostring(st.approval_policy or "?") .. ")",
        kind = "scv.policy",
        format_item = function(p)
          return (p == st.approval_policy and "● " or "") .. p
        end,
      }, function(choice)
        if choice then
          vim.schedule(function()
            configure(self, st, { approvalPolicy = choice }, "approval policy")
          end)
        end
      end)
    end)
  end
end

return setmetatable(M, {
  __call = function(_, Controller)
    install(Controller)
  end,
})
