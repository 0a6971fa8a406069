-- Handlers of the queue's events. They change the queue only for live
-- events (see state.lua's two sequence marks). Registered into state.lua's
-- table; each is handler(state, params, effects, live, draw).
return function(handlers, util)
  handlers["scv/queue/snapshot"] = function(self, p, fx, live)
    self:_remember_entries(p.entries)
    if live then
      self:set_queue(p.entries, p.paused)
      fx[#fx + 1] = { kind = "queue" }
    end
  end

  handlers["scv/queue/enqueued"] = function(self, p, fx, live)
    local e = p.entry or {}
    self:_remember_entries({ e })
    if live and e.queueId then
      local i = util.index_of(self.queue, "queueId", e.queueId)
      if i then
        table.remove(self.queue, i)
      end
      local pos = (tonumber(p.position) or #self.queue) + 1
      pos = math.max(1, math.min(pos, #self.queue + 1))
      table.insert(self.queue, pos, util.copy_entry(e))
      fx[#fx + 1] = { kind = "queue" }
    end
  end

  handlers["scv/queue/updated"] = function(self, p, fx, live)
    local e = p.entry or {}
    self:_remember_entries({ e })
    if live then
      local i = util.index_of(self.queue, "queueId", e.queueId)
      if i then
        self.queue[i] = util.copy_entry(e)
        fx[#fx + 1] = { kind = "queue" }
      end
    end
  end

  handlers["scv/queue/moved"] = function(self, p, fx, live)
    if live then
      local i = util.index_of(self.queue, "queueId", p.queueId)
      if i then
        local e = table.remove(self.queue, i)
        e.revision = p.revision or e.revision
        local pos = (tonumber(p.position) or #self.queue) + 1
        pos = math.max(1, math.min(pos, #self.queue + 1))
        table.insert(self.queue, pos, e)
        fx[#fx + 1] = { kind = "queue" }
      end
    end
  end

  handlers["scv/queue/removed"] = function(self, p, fx, live)
    util.drop_queued(self, p.queueId, fx, live)
  end

  handlers["scv/queue/dequeued"] = function(self, p, fx, live)
    local prompt = self.queued_prompts[p.queueId]
    if prompt ~= nil and p.turnId and self.prompts[p.turnId] == nil then
      self.prompts[p.turnId] = prompt
      self.transcript:set_prompt(p.turnId, prompt)
    end
    util.drop_queued(self, p.queueId, fx, live)
  end
end
