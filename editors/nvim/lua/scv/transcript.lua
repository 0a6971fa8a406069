-- The transcript of one session as a list of blocks that render to lines.
--
-- The model remembers which lines changed since the view last took them, so
-- a stream of deltas costs one small buffer edit per flush rather than one per
-- delta, and an update to a tool block in the middle rewrites only from that
-- block down. Pure: no editor calls.
local M = {}

local Transcript = {}
Transcript.__index = Transcript

-- Lines of a tool body start with this marker; the transcript buffer folds on
-- it (see transcript_view.FOLDEXPR).
M.TOOL_HEADER = "▸ "
M.TOOL_BODY = "│ "

local function split_lines(text)
  return vim.split(text, "\n", { plain = true })
end
M._split_lines = split_lines

-- Pieces of a text block's last line wait in `pending` until someone reads
-- the lines: appending to one long line piece by piece would copy it whole
-- on every delta.
local function settle(block)
  local pending = block.pending
  if pending and #pending > 0 then
    local lines = block.lines
    lines[#lines] = lines[#lines] .. table.concat(pending)
    block.pending = {}
  end
end

function M.new()
  return setmetatable({
    blocks = {},
    -- index of the first block whose lines changed since take_edit, or nil
    dirty_block = nil,
    -- 1-based line within dirty_block from which lines changed
    dirty_line = nil,
    -- set when everything must be redrawn (after reset)
    full = true,
    -- tool blocks by callId, assistant blocks by turnId (the open one)
    tools = {},
    open_text = {},
    open_reasoning = {},
    turns = {},
    plans = {},
    -- blocks whose lines are rendered by block.render() before they are read
    stale_blocks = {},
  }, Transcript)
end

function Transcript:_mark(index, line)
  line = line or 1
  if self.dirty_block == nil or index < self.dirty_block then
    self.dirty_block, self.dirty_line = index, line
  elseif index == self.dirty_block and line < self.dirty_line then
    self.dirty_line = line
  end
end

function Transcript:_push(block)
  local last = self.blocks[#self.blocks]
  if last and last.kind == "reasoning" and not last.closed then
    -- thinking ends where anything else begins: close its fold
    self:_close_text(last)
  end
  table.insert(self.blocks, block)
  block.index = #self.blocks
  self:_mark(block.index, 1)
  return block
end

-- Insert a block before blocks[at] (a late event that belongs higher up).
-- Every block from there down moves: their indexes follow, and the redraw
-- starts at the new block, which also covers any dirty mark below it.
function Transcript:_insert(block, at)
  if at > #self.blocks then
    return self:_push(block)
  end
  table.insert(self.blocks, at, block)
  for i = at, #self.blocks do
    self.blocks[i].index = i
  end
  self:_mark(at, 1)
  return block
end

-- Re-render a block whose content changed as a whole.
function Transcript:_replace(block, lines)
  block.lines = lines
  self:_mark(block.index, 1)
end

--- Forget every block (the session was cleared or re-synced from scratch).
function Transcript:reset()
  self.blocks = {}
  self.head = nil
  self.tools = {}
  self.open_text = {}
  self.open_reasoning = {}
  self.stale_blocks = {}
  self.turns = {}
  self.plans = {}
  self.dirty_block, self.dirty_line = nil, nil
  self.full = true
end

--- The next take_edit redraws everything (the buffer was replaced).
function Transcript:mark_full()
  self.full = true
end

--- Number of lines the whole transcript renders to.
function Transcript:line_count()
  self:_settle_open()
  local n = 0
  for _, b in ipairs(self.blocks) do
    n = n + #b.lines
  end
  return n
end

--- All lines, for a full render.
function Transcript:all_lines()
  self:_settle_open()
  local out = {}
  for _, b in ipairs(self.blocks) do
    for _, l in ipairs(b.lines) do
      out[#out + 1] = l
    end
  end
  return out
end

--- The edit that brings a buffer that mirrored the previous take_edit up to
--- date: replace lines [first, end) with `lines` (first is 0-based).
--- Returns nil when nothing changed.
---@return table|nil { first = integer, lines = string[], full = boolean }
function Transcript:take_edit()
  self:_settle_open()
  if self.full then
    self.full = false
    self.dirty_block, self.dirty_line = nil, nil
    return { first = 0, lines = self:all_lines(), full = true }
  end
  local d = self.dirty_block
  if d == nil then
    return nil
  end
  local first = 0
  for i = 1, d - 1 do
    first = first + #self.blocks[i].lines
  end
  local lines = {}
  local start_line = self.dirty_line
  for i = d, #self.blocks do
    local bl = self.blocks[i].lines
    for j = (i == d) and start_line or 1, #bl do
      lines[#lines + 1] = bl[j]
    end
  end
  first = first + start_line - 1
  self.dirty_block, self.dirty_line = nil, nil
  return { first = first, lines = lines, full = false }
end

-- ── blocks ────────────────────────────────────────────────────────────────

local function header_lines(h)
  local has_title = type(h.title) == "string" and h.title ~= ""
  local lines = { has_title and ("# " .. h.title:gsub("\n.*", "")) or ("# scv session " .. tostring(h.session_id)) }
  local meta = {}
  if has_title then
    meta[#meta + 1] = "session " .. tostring(h.session_id)
  end
  local cwd, model = h.cwd, h.model
  if cwd then
    meta[#meta + 1] = "cwd " .. cwd
  end
  if model and model ~= "" then
    meta[#meta + 1] = "model " .. model
  end
  if #meta > 0 then
    lines[#lines + 1] = "_" .. table.concat(meta, " · ") .. "_"
  end
  lines[#lines + 1] = ""
  return lines
end

--- A heading for the session (first block): its title when it has one.
function Transcript:header(session_id, cwd, model, title)
  local h = { kind = "header", session_id = session_id, cwd = cwd, model = model, title = title }
  h.lines = header_lines(h)
  self.head = self:_push(h)
end

--- The session's model changed (scv/session/configured).
function Transcript:set_model(model)
  local h = self.head
  if h and model and h.model ~= model and self.blocks[h.index] == h then
    h.model = model
    self:_replace(h, header_lines(h))
  end
end

--- The session was renamed (or its title became known).
function Transcript:set_title(title)
  local h = self.head
  if h and title and h.title ~= title and self.blocks[h.index] == h then
    h.title = title
    self:_replace(h, header_lines(h))
  end
end

--- "name:3" or "name:3-7" for an attachment {uri, range?} (1-based lines; a
--- range ending at column 0 ends on the line before).
function M.attachment_label(c)
  local uri = tostring(c.uri or "")
  local name = uri:gsub("[?#].*$", ""):gsub("/+$", ""):match("([^/]*)$")
  if name == nil or name == "" then
    name = uri
  end
  name = name:gsub("%%(%x%x)", function(hex)
    return string.char(tonumber(hex, 16))
  end)
  local r = c.range
  if type(r) ~= "table" or type(r.start) ~= "table" or type(r["end"]) ~= "table" then
    return name
  end
  local first = (tonumber(r.start.line) or 0) + 1
  local last_line = tonumber(r["end"].line) or 0
  local last = (tonumber(r["end"].character) == 0 and last_line + 1 > first) and last_line or last_line + 1
  if last > first then
    return string.format("%s:%d-%d", name, first, last)
  end
  return string.format("%s:%d", name, first)
end

local function prompt_lines(prompt, context, reverted)
  local lines = { reverted and "## You — reverted" or "## You" }
  if prompt then
    vim.list_extend(lines, split_lines(prompt))
  else
    -- only servers older than durable sessions leave the prompt out
    lines[#lines + 1] = "_(prompt sent from another client)_"
  end
  if context and #context > 0 then
    local names = {}
    for _, c in ipairs(context) do
      names[#names + 1] = M.attachment_label(c)
    end
    lines[#lines + 1] = "_attached: " .. table.concat(names, ", ") .. "_"
  end
  lines[#lines + 1] = ""
  return lines
end

M._prompt_lines = prompt_lines

--- A new turn; prompt may be nil when this client did not send it and the
--- server did not say.
function Transcript:turn(turn_id, prompt, context)
  local block = self:_push({ kind = "turn", turn_id = turn_id, prompt = prompt, context = context, lines = prompt_lines(prompt, context) })
  self.turns[turn_id] = block
end

--- The prompt of a turn became known after its block was drawn.
function Transcript:set_prompt(turn_id, prompt)
  local block = self.turns and self.turns[turn_id]
  if block and block.prompt ~= prompt then
    block.prompt = prompt
    self:_replace(block, prompt_lines(prompt, block.context, block.reverted))
  end
end

-- Ends a text block with the blank line that separates it from what follows.
function Transcript:_close_text(block)
  settle(block)
  block.closed = true
  if block.lines[#block.lines] ~= "" then
    self:_mark(block.index, #block.lines + 1)
    block.lines[#block.lines + 1] = ""
  end
end

function Transcript:_text_block(turn_id)
  local block = self.open_text[turn_id]
  if block and block.index == #self.blocks then
    return block
  end
  if block then
    -- something else was drawn after it: the stream goes on in a new block
    self:_close_text(block)
  end
  block = self:_push({ kind = "assistant", turn_id = turn_id, chunks = {}, pending = {}, lines = { "" } })
  self.open_text[turn_id] = block
  return block
end

--- The block's content changed: render it (once) before lines are read, so
--- a block updated many times between two flushes costs one rendering.
function Transcript:_stale(block)
  if not block.stale then
    block.stale = true
    self.stale_blocks[#self.stale_blocks + 1] = block
  end
  self:_mark(block.index, 1)
end

function Transcript:_settle_open()
  for _, block in pairs(self.open_text) do
    settle(block)
  end
  for _, block in pairs(self.open_reasoning or {}) do
    settle(block)
  end
  local stale = self.stale_blocks
  if #stale > 0 then
    self.stale_blocks = {}
    for _, block in ipairs(stale) do
      block.stale = false
      block.lines = block.render()
    end
  end
end

-- Appends streamed text to a block: pieces of the last line wait in
-- `pending`; each new line starts with prefix.
local function stream(self, block, content, prefix)
  local lines = block.lines
  self:_mark(block.index, #lines)
  if not content:find("\n", 1, true) then
    block.pending[#block.pending + 1] = content
    return
  end
  settle(block)
  local parts = split_lines(content)
  lines[#lines] = lines[#lines] .. parts[1]
  for i = 2, #parts do
    lines[#lines + 1] = prefix .. parts[i]
  end
end
M._stream = stream

--- Streamed assistant text.
function Transcript:delta(turn_id, content)
  if content == nil or content == "" then
    return
  end
  local block = self:_text_block(turn_id)
  block.chunks[#block.chunks + 1] = content
  stream(self, block, content, "")
end

--- The full text of one assistant message: closes the open text block, and
--- repairs it when deltas were missed (e.g. replay that started mid-way).
function Transcript:completed(turn_id, content)
  local block = self.open_text[turn_id]
  content = content or ""
  if block == nil then
    if content == "" then
      return
    end
    block = self:_push({ kind = "assistant", turn_id = turn_id, chunks = {}, lines = { "" } })
  end
  settle(block)
  if table.concat(block.chunks) ~= content then
    block.chunks = { content }
    self:_replace(block, split_lines(content))
  end
  self:_close_text(block)
  self.open_text[turn_id] = nil
end

--- The turn ended: close its text block if a message was left open.
function Transcript:completed_if_open(turn_id)
  local block = self.open_text[turn_id]
  if block then
    self:_close_text(block)
    self.open_text[turn_id] = nil
  end
end

--- A one-line note (usage, cancellation, failure, compaction …).
---@param ends_turn string|nil the turn this note closes (its usage, cancellation, failure)
function Transcript:notice(text, ends_turn)
  self:_push({ kind = "notice", ends_turn = ends_turn, lines = { "_" .. text .. "_", "" } })
end

require("scv.transcript_tools")(Transcript, M)
require("scv.transcript_turns")(Transcript, M)

return M
