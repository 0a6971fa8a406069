-- Handlers of tool calls, their live output and approvals, and the plan. Registered into state.lua's
-- table; each is handler(state, params, effects, live, draw).
return function(handlers, util)
  handlers["scv/tool/proposed"] = function(self, p, _, _, draw)
    if draw then
      self.transcript:tool(p.turnId, p.callId, { name = p.name, arguments = p.arguments, status = "proposed" })
    end
  end

  handlers["scv/tool/started"] = function(self, p, _, _, draw)
    if draw then
      self.transcript:tool(p.turnId, p.callId, { name = p.name, status = "running" })
    end
  end

  handlers["scv/tool/completed"] = function(self, p, _, _, draw)
    if draw then
      self.transcript:tool(p.turnId, p.callId, {
        name = p.name,
        status = p.success and "done" or "failed",
        success = p.success == true,
        output = type(p.output) == "string" and p.output or "",
        truncated = p.truncated == true,
      })
    end
  end

  handlers["scv/tool/output"] = function(self, p, _, _, draw)
    if draw then
      self.transcript:tool_output(p.turnId, p.callId, p.chunk)
    end
  end

  handlers["scv/plan/updated"] = function(self, p, _, live, draw)
    if live then
      self.plan = { turn_id = p.turnId, steps = p.steps or {} }
    end
    if draw then
      self.transcript:plan(p.turnId, p.steps or {})
    end
  end

  handlers["scv/approval/requested"] = function(self, p, fx, live, draw)
    self.approval_calls[p.approvalId] = { p.turnId, p.callId }
    if live and not util.index_of(self.approvals, "approvalId", p.approvalId) then
      local a = vim.deepcopy(p)
      self.approvals[#self.approvals + 1] = a
      fx[#fx + 1] = { kind = "approval_requested", approval = a }
    end
    if draw then
      local notice = type(p.notice) == "string" and p.notice ~= "" and p.notice or nil
      self.transcript:tool(p.turnId, p.callId, { name = p.name, status = "awaiting approval", risk = p.risk, notice = notice })
    end
  end

  local decision_status = {
    approve = "approved",
    deny = "denied",
    ["approve-session"] = "approved for the session",
  }

  handlers["scv/approval/resolved"] = function(self, p, fx, live, draw)
    if live then
      local i = util.index_of(self.approvals, "approvalId", p.approvalId)
      if i then
        table.remove(self.approvals, i)
      end
      fx[#fx + 1] = { kind = "approval_resolved", approval_id = p.approvalId, decision = p.decision }
    end
    local call = self.approval_calls[p.approvalId]
    if draw and call then
      self.transcript:tool(call[1], call[2], { status = decision_status[p.decision] or tostring(p.decision), decision = p.decision })
    end
  end
end
