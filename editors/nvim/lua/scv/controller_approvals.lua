-- The controller's side of approval prompts (approval.lua asks): sending the
-- decision, with an allow rule when the user chose "Always allow", and the
-- texts of an edit for its diff split.
local approval = require("scv.approval")
local approval_diff = require("scv.approval_diff")
local protocol = require("scv.protocol")

local levels = vim.log.levels

return function(Controller)
  function Controller:_init_approvals()
    self.approvals = approval.new({
      resolve = function(a, decision, allow_rule)
        self:_resolve(a, decision, allow_rule)
      end,
      notify = function(msg, level)
        self:notify(msg, level)
      end,
      reconcile = function()
        self:_reconcile_approvals()
      end,
      edit_texts = function(a)
        return self:_edit_texts(a)
      end,
    })
  end

  -- current ↔ proposed of an edit approval, when this window saw the call.
  function Controller:_edit_texts(a)
    local st = self.state
    if st == nil or not approval_diff.TOOLS[a.name] then
      return nil
    end
    return (approval_diff.compute(a, st.transcript:tool_arguments(a.turnId, a.callId)))
  end

  ---@param allow_rule string|nil a rule for the user's config (decision approve)
  function Controller:_resolve(a, decision, allow_rule)
    local st = self.state
    if st == nil then
      return
    end
    local params = { sessionId = st.session_id, approvalId = a.approvalId, decision = decision, allowRule = allow_rule }
    self:request(protocol.request.approval_resolve, params, function(err, result)
      if err == nil then
        if allow_rule and type(result) == "table" and type(result.ruleAddedTo) == "string" then
          self:notify(string.format("scv: %s added to %s", allow_rule, result.ruleAddedTo), levels.INFO)
        end
        return
      end
      if protocol.error_code(err) == protocol.errors.approval_not_found then
        self:notify("scv: that approval was already resolved elsewhere", levels.INFO)
      else
        self.approvals:unanswered(a.approvalId)
        self:notify("scv: could not send the approval: " .. protocol.error_text(err), levels.ERROR)
        self:_reconcile_approvals()
      end
    end)
  end

  function Controller:_reconcile_approvals()
    local st = self.state
    if st == nil then
      return
    end
    -- the builtin vim.ui.select blocks: never ask from inside a handler
    vim.schedule(function()
      if self.state == st then
        self.approvals:reconcile(st.approvals)
      end
    end)
  end
end
