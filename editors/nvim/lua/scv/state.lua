-- The client-side state of one session, driven by the server's notifications.
--
-- Two sequence marks keep replay and live events apart:
--   seen_seq – the last event whose effect on the transcript was applied;
--   live_seq – the last event (or snapshot) the queue, approvals and run
--              state reflect.
-- After an attach the snapshot already holds the current queue and pending
-- approvals, while the replayed events (seq <= snapshot.seq) still have to be
-- drawn in the transcript; applying them to the queue a second time would
-- corrupt it. Pure: no editor calls, so it is tested without a server.
local protocol = require("scv.protocol")
local transcript = require("scv.transcript")

local M = {}

local State = {}
State.__index = State

---@param session_id string
function M.new(session_id)
  return setmetatable({
    session_id = session_id,
    cwd = nil,
    model = nil,
    run = "idle",
    turn_id = nil,
    paused = false,
    closed = false,
    queue = {},
    approvals = {},
    seen_seq = 0,
    live_seq = 0,
    -- prompt text by turnId (sent by this client) and by queueId (seen in queue events)
    prompts = {},
    queued_prompts = {},
    approval_calls = {},
    usage = { input = 0, output = 0 },
    -- the session's MCP servers by name: { state = ..., error = ... }, as scv/mcp/status said last
    mcp = {},
    transcript = transcript.new(),
  }, State)
end

local function copy_entry(e)
  return { queueId = e.queueId, revision = e.revision, prompt = e.prompt, submitter = e.submitter }
end

local function index_of(list, key, value)
  for i, item in ipairs(list) do
    if item[key] == value then
      return i
    end
  end
  return nil
end

function State:_remember_entries(entries)
  for _, e in ipairs(entries or {}) do
    if e.queueId then
      self.queued_prompts[e.queueId] = e.prompt
    end
  end
end

--- Apply a Snapshot (from session/start or session/attach).
---@param snap table
---@param opts table|nil { replay = true when events up to snap.seq will be replayed }
function State:apply_snapshot(snap, opts)
  opts = opts or {}
  self.cwd = snap.cwd or self.cwd
  self.model = snap.model or self.model
  if not protocol.is_null(snap.approvalPolicy) then
    self.approval_policy = snap.approvalPolicy
  end
  self.limits = snap.limits or self.limits
  self.context_max_tokens = snap.contextMaxTokens or self.context_max_tokens
  if not protocol.is_null(snap.title) and snap.title ~= "" then
    self.title = snap.title
  end
  if #self.transcript.blocks == 0 then
    self.transcript:header(self.session_id, self.cwd, self.model, self.title)
  else
    self.transcript:set_title(self.title)
  end
  local seq = tonumber(snap.seq) or 0
  if seq >= self.live_seq then
    self.live_seq = seq
    self.run = snap.state == "running" and "running" or "idle"
    self.turn_id = (not protocol.is_null(snap.turnId)) and snap.turnId or nil
    local q = snap.queue or {}
    self.queue = {}
    for _, e in ipairs(q.entries or {}) do
      self.queue[#self.queue + 1] = copy_entry(e)
    end
    self:_remember_entries(q.entries)
    self.paused = q.paused == true
    self.approvals = {}
    for _, a in ipairs(snap.pendingApprovals or {}) do
      self.approvals[#self.approvals + 1] = a
      self.approval_calls[a.approvalId] = { a.turnId, a.callId }
    end
  end
  if not opts.replay and seq > self.seen_seq then
    self.seen_seq = seq
  end
end

--- Replace the queue with the answer of scv/queue/list.
function State:set_queue(entries, paused)
  self.queue = {}
  for _, e in ipairs(entries or {}) do
    self.queue[#self.queue + 1] = copy_entry(e)
  end
  self:_remember_entries(entries)
  if paused ~= nil then
    self.paused = paused == true
  end
end

--- The model and approval policy in force (scv/session/configured or the
--- reply of scv/session/configure); nil leaves a value as it is.
function State:set_configuration(model, policy)
  if type(model) == "string" and model ~= "" then
    self.model = model
  end
  if type(policy) == "string" and policy ~= "" then
    self.approval_policy = policy
  end
end

--- The prompt of a turn this client started (known from the turn/start reply).
function State:note_prompt(turn_id, prompt)
  self.prompts[turn_id] = prompt
  self.transcript:set_prompt(turn_id, prompt)
end

function State:_end_turn(turn_id, effects, live)
  if live then
    if self.turn_id == turn_id or self.turn_id == nil then
      self.run = "idle"
      self.turn_id = nil
    end
    -- pending approvals end with their turn
    local kept = {}
    for _, a in ipairs(self.approvals) do
      if a.turnId == turn_id then
        effects[#effects + 1] = { kind = "approval_resolved", approval_id = a.approvalId, decision = "ended" }
      else
        kept[#kept + 1] = a
      end
    end
    self.approvals = kept
  end
end

-- drop_queued removes a queue entry on a live event (removed, dequeued, or a queued turn that started).
local function drop_queued(self, queue_id, fx, live)
  if live then
    local i = index_of(self.queue, "queueId", queue_id)
    if i then
      table.remove(self.queue, i)
      fx[#fx + 1] = { kind = "queue" }
    end
  end
end

local handlers = {}
local util = { copy_entry = copy_entry, index_of = index_of, drop_queued = drop_queued }
require("scv.state_turn")(handlers, util)
require("scv.state_tools")(handlers, util)
require("scv.state_queue")(handlers, util)
require("scv.state_session")(handlers, util)

--- One line per MCP server of the session, by name: "name: state (error)".
function State:mcp_lines()
  local names = vim.tbl_keys(self.mcp)
  table.sort(names)
  local lines = {}
  for _, name in ipairs(names) do
    local s = self.mcp[name]
    lines[#lines + 1] = string.format("%s: %s%s", name, s.state, s.error and (" (" .. s.error .. ")") or "")
  end
  return lines
end

--- Apply one notification. Returns the list of effects the UI must act on:
--- { kind = "transcript" | "queue" | "run" | "approval_requested" |
---   "approval_resolved" | "cleared" | "closed" | "resync", ... }
---@param method string
---@param params table
---@return table[]
function State:apply(method, params)
  local fx = {}
  params = params or {}
  if method == "scv/session/lagged" then
    self.transcript:notice(string.format("this window missed %s events; re-syncing", tostring(params.missed)))
    fx[#fx + 1] = { kind = "transcript" }
    fx[#fx + 1] = { kind = "resync", missed = params.missed }
    return fx
  end
  if method == "scv/session/gap" then
    self.transcript:notice(
      string.format("older events are gone; the transcript resumes at event %s", tostring(params.firstAvailableSeq))
    )
    fx[#fx + 1] = { kind = "transcript" }
    return fx
  end
  local h = handlers[method]
  if h == nil then
    return fx
  end
  local seq = tonumber(params.seq)
  local draw, live = true, true
  if seq then
    draw = seq > self.seen_seq
    live = seq > self.live_seq
    if not draw and not live then
      return fx
    end
    if draw then
      self.seen_seq = seq
    end
    if live then
      self.live_seq = seq
    end
  end
  local run, approvals, queued, paused, closed = self.run, #self.approvals, #self.queue, self.paused, self.closed
  h(self, params, fx, live, draw)
  if draw then
    fx[#fx + 1] = { kind = "transcript" }
  end
  if
    run ~= self.run
    or approvals ~= #self.approvals
    or queued ~= #self.queue
    or paused ~= self.paused
    or closed ~= self.closed
  then
    fx[#fx + 1] = { kind = "run" }
  end
  return fx
end

--- The summary a statusline shows.
---@return table { state = "idle"|"running"|"approval"|"closed", queued = integer, paused = boolean }
function State:status()
  local state = self.run
  if self.closed then
    state = "closed"
  elseif #self.approvals > 0 then
    state = "approval"
  end
  local u = self.usage
  local max = u.context_max or self.context_max_tokens
  return {
    state = state,
    queued = #self.queue,
    paused = self.paused,
    -- nil until the server said (scv/session/usage)
    context_percent = (u.context and max and max > 0) and math.floor(u.context * 100 / max + 0.5) or nil,
    tokens = u.from_server and (u.input + u.output) or nil,
  }
end

--- 950, 12.3k, 1.2M: a token count short enough for a statusline.
function M.short_count(n)
  if n < 1000 then
    return tostring(n)
  elseif n < 1000000 then
    return (string.format("%.1fk", n / 1000):gsub("%.0k$", "k"))
  end
  return (string.format("%.1fM", n / 1000000):gsub("%.0M$", "M"))
end

--- The pending approval with this id, if any.
function State:approval(approval_id)
  local i = index_of(self.approvals, "approvalId", approval_id)
  return i and self.approvals[i] or nil
end

--- The queue entry with this id, if any.
function State:entry(queue_id)
  local i = index_of(self.queue, "queueId", queue_id)
  return i and self.queue[i] or nil
end

M.format_status = function(st)
  if st == nil then
    return ""
  end
  local s = st.state
  if st.paused then
    s = s .. " (paused)"
  end
  if st.queued > 0 then
    s = string.format("%s · %d queued", s, st.queued)
  end
  if st.context_percent then
    s = string.format("%s · ctx %d%%", s, st.context_percent)
  end
  if st.tokens then
    s = string.format("%s · %s tok", s, M.short_count(st.tokens))
  end
  return s
end

return M
