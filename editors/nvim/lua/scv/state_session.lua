-- Handlers of session-wide events: pause, clear, restore, rename, close,
-- MCP status, compaction, model and policy changes, token usage. Registered into state.lua's table; each is
-- handler(state, params, effects, live, draw).
local protocol = require("scv.protocol")
local restored_text = require("scv.restored").text

return function(handlers)
  handlers["scv/session/configured"] = function(self, p, fx, live, draw)
    if live then
      self:set_configuration(p.model, p.approvalPolicy)
      fx[#fx + 1] = { kind = "run" }
    end
    if draw then
      self.transcript:set_model(p.model)
      self.transcript:notice(
        string.format("model %s · approval policy %s", tostring(p.model), tostring(p.approvalPolicy))
      )
    end
  end

  -- inputTokens/outputTokens are the session's totals, contextTokens the
  -- last model call's prompt; replayed too, so the last one drawn counts
  handlers["scv/session/usage"] = function(self, p, fx, _, draw)
    if draw then
      self.usage = {
        from_server = true,
        input = tonumber(p.inputTokens) or 0,
        output = tonumber(p.outputTokens) or 0,
        context = tonumber(p.contextTokens),
        context_max = tonumber(p.contextMaxTokens),
      }
      fx[#fx + 1] = { kind = "run" }
    end
  end

  handlers["scv/session/paused"] = function(self, p, fx, live)
    if live then
      self.paused = p.paused == true
      fx[#fx + 1] = { kind = "queue" }
    end
  end

  handlers["scv/session/cleared"] = function(self, _, fx, live, draw)
    if live then
      self.queue = {}
      self.plan = nil
      fx[#fx + 1] = { kind = "queue" }
    end
    if draw then
      self.transcript:reset()
      self.transcript:header(self.session_id, self.cwd, self.model, self.title)
      self.transcript:notice("session cleared")
    end
    fx[#fx + 1] = { kind = "cleared" }
  end

  handlers["scv/session/restored"] = function(self, p, fx, live, draw)
    if live then
      self.paused = p.paused == true
      fx[#fx + 1] = { kind = "queue" }
    end
    if draw then
      self.transcript:notice(restored_text(p))
    end
  end

  -- replayed renames too: the last one drawn is the title
  handlers["scv/session/renamed"] = function(self, p, _, _, draw)
    if draw and type(p.title) == "string" then
      self.title = p.title
      self.transcript:set_title(p.title)
    end
  end

  handlers["scv/session/closed"] = function(self, _, fx, live, draw)
    if live then
      self.closed = true
      self.run = "idle"
      self.turn_id = nil
      self.queue = {}
      for _, a in ipairs(self.approvals) do
        fx[#fx + 1] = { kind = "approval_resolved", approval_id = a.approvalId, decision = "closed" }
      end
      self.approvals = {}
      fx[#fx + 1] = { kind = "closed" }
    end
    if draw then
      self.transcript:notice("session closed")
    end
  end

  handlers["scv/mcp/status"] = function(self, p, _, live)
    if live then
      self.mcp[p.name] = { state = p.state, error = (not protocol.is_null(p.error)) and p.error or nil }
    end
  end


  handlers["scv/context/compacted"] = function(self, p, _, _, draw)
    if draw then
      self.transcript:notice(
        string.format(
          "context compacted: %s → %s tokens, %s messages removed",
          tostring(p.beforeTokens),
          tostring(p.afterTokens),
          tostring(p.removedMessages)
        )
      )
    end
  end
end
