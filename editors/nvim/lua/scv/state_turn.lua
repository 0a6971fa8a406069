-- Handlers of a turn's life and its assistant text: started, deltas,
-- thinking, steering, completed / cancelled / failed, changed files, revert. Registered into state.lua's table; each is
-- handler(state, params, effects, live, draw) (see State:apply).
local protocol = require("scv.protocol")
local session_rows = require("scv.session_rows")

-- The notice a turn's end carries (said once per session: its file passed
-- 80 % of sessions.max_log_bytes, so it takes no new prompt), on one line
-- under the turn's end.
local function show_turn_end_notice(transcript, p)
  if type(p.notice) == "string" and p.notice ~= "" then
    transcript:notice("note: " .. p.notice:gsub("[\r\n]+", " "), p.turnId)
  end
end

return function(handlers, util)
  handlers["scv/turn/started"] = function(self, p, fx, live, draw)
    if live then
      self.run = "running"
      self.turn_id = p.turnId
    end
    if not protocol.is_null(p.queueId) then
      util.drop_queued(self, p.queueId, fx, live)
    end
    if draw then
      -- the server's prompt (other clients, replays; absent from older servers),
      -- else what this client knows
      local prompt = (type(p.prompt) == "string" and p.prompt ~= "") and p.prompt or self.prompts[p.turnId]
      if prompt == nil and not protocol.is_null(p.queueId) then
        prompt = self.queued_prompts[p.queueId]
      end
      self.prompts[p.turnId] = prompt
      if self.title == nil and type(prompt) == "string" then
        -- the server titles a session after its first prompt until renamed
        self.title = session_rows.first_line(prompt)
        self.transcript:set_title(self.title)
      end
      self.transcript:turn(p.turnId, prompt, type(p.context) == "table" and p.context or nil)
    end
  end

  handlers["scv/assistant/delta"] = function(self, p, _, _, draw)
    if draw then
      self.transcript:delta(p.turnId, p.content)
    end
  end

  handlers["scv/assistant/reasoning"] = function(self, p, _, _, draw)
    if draw then
      self.transcript:reasoning(p.turnId, p.content)
    end
  end

  handlers["scv/turn/steered"] = function(self, p, _, _, draw)
    if draw then
      self.transcript:steered(p.turnId, p.prompt)
    end
  end

  -- The server computes a turn's changes off the turn's critical path: they
  -- may come after its end, even after the next turn started (live and in a
  -- replay); the transcript draws them under their turn either way.
  handlers["scv/turn/changes"] = function(self, p, _, _, draw)
    if draw and type(p.files) == "table" then
      self.transcript:changes(p.turnId, p.files)
    end
  end

  handlers["scv/turn/reverted"] = function(self, p, _, _, draw)
    if draw then
      local ids = type(p.turnIds) == "table" and p.turnIds or { p.turnId }
      self.transcript:reverted(ids)
      self.transcript:notice(string.format("reverted %d turn%s", #ids, #ids == 1 and "" or "s"))
    end
  end

  handlers["scv/assistant/completed"] = function(self, p, _, _, draw)
    if draw then
      self.transcript:completed(p.turnId, p.content)
      if p.interrupted == true then
        self.transcript:notice("(response cut off)")
      end
    end
  end

  handlers["scv/turn/completed"] = function(self, p, fx, live, draw)
    self:_end_turn(p.turnId, fx, live)
    local u = p.usage or {}
    if draw then
      if not self.usage.from_server then
        -- a server without scv/session/usage: add up the turns
        self.usage.input = self.usage.input + (tonumber(u.inputTokens) or 0)
        self.usage.output = self.usage.output + (tonumber(u.outputTokens) or 0)
      end
      self.transcript:completed_if_open(p.turnId)
      self.transcript:notice(
        string.format(
          "usage: %d input · %d output tokens · %d steps",
          tonumber(u.inputTokens) or 0,
          tonumber(u.outputTokens) or 0,
          tonumber(p.steps) or 0
        ),
        p.turnId
      )
      show_turn_end_notice(self.transcript, p)
    end
  end

  handlers["scv/turn/cancelled"] = function(self, p, fx, live, draw)
    self:_end_turn(p.turnId, fx, live)
    if draw then
      self.transcript:completed_if_open(p.turnId)
      self.transcript:notice("turn cancelled", p.turnId)
      show_turn_end_notice(self.transcript, p)
    end
  end

  handlers["scv/turn/failed"] = function(self, p, fx, live, draw)
    self:_end_turn(p.turnId, fx, live)
    if draw then
      self.transcript:completed_if_open(p.turnId)
      if p.code == protocol.INTERRUPTED then
        self.transcript:notice("turn interrupted by a restart: " .. tostring(p.message), p.turnId)
      else
        self.transcript:notice(string.format("turn failed (%s): %s", tostring(p.code), tostring(p.message)), p.turnId)
      end
      show_turn_end_notice(self.transcript, p)
    end
  end
end
