-- The queue buffer `scv://<session-id>/queue`: one queued prompt per line.
-- Writing it (:w) sends the edits as scv/queue/remove, update and move
-- requests, each with the revision it was based on; when the server answers
-- queue_conflict the buffer is reloaded from the server and the user is told.
local queue_edit = require("scv.queue_edit")
local protocol = require("scv.protocol")

local M = {}

local View = {}
View.__index = View

---@param o table session_id, request fun(method, params, cb), get_state fun(): State, notify fun(msg, level)
function M.new(o)
  local self = setmetatable({
    o = o,
    name = "scv://" .. o.session_id .. "/queue",
    ns = vim.api.nvim_create_namespace("scv_queue"),
    buf = nil,
    base = {},
    writing = false,
  }, View)
  return self
end

function View:valid()
  return self.buf ~= nil and vim.api.nvim_buf_is_valid(self.buf)
end

function View:_create()
  local buf = vim.api.nvim_create_buf(true, false)
  vim.api.nvim_buf_set_name(buf, self.name)
  vim.bo[buf].buftype = "acwrite"
  vim.bo[buf].bufhidden = "hide"
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = "scvqueue"
  self.buf = buf
  local group = vim.api.nvim_create_augroup("scv_queue_" .. buf, { clear = true })
  vim.api.nvim_create_autocmd("BufWriteCmd", {
    group = group,
    buffer = buf,
    callback = function()
      self:write()
    end,
  })
  vim.api.nvim_create_autocmd("BufWipeout", {
    group = group,
    buffer = buf,
    callback = function()
      if self.buf == buf then
        self.buf = nil
      end
    end,
  })
end

--- Draw entries, tie each line to its entry, and mark the buffer unmodified.
function View:render(entries, paused)
  if not self:valid() then
    return
  end
  local buf = self.buf
  self.base = vim.deepcopy(entries)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, queue_edit.render(entries))
  vim.api.nvim_buf_clear_namespace(buf, self.ns, 0, -1)
  self.mark_ids = {}
  for i, e in ipairs(entries) do
    local id = vim.api.nvim_buf_set_extmark(buf, self.ns, i - 1, 0, {})
    self.mark_ids[id] = e.queueId
  end
  local note = string.format("%d queued%s — edit, delete or reorder lines, then :w", #entries, paused and ", paused" or "")
  vim.api.nvim_buf_set_extmark(buf, self.ns, 0, 0, { virt_text = { { note, "Comment" } }, virt_text_pos = "eol" })
  vim.bo[buf].modified = false
end

--- The queue changed on the server: redraw unless the user has edits pending
--- (those are checked against their revisions when written).
function View:refresh()
  if not self:valid() or self.writing or vim.bo[self.buf].modified then
    return
  end
  local st = self.o.get_state()
  self:render(st.queue, st.paused)
end

--- Open the queue buffer in a split.
function View:show()
  if not self:valid() then
    self:_create()
  end
  local st = self.o.get_state()
  if not vim.bo[self.buf].modified then
    self:render(st.queue, st.paused)
  end
  if #vim.fn.win_findbuf(self.buf) == 0 then
    vim.cmd("split")
    vim.api.nvim_win_set_buf(0, self.buf)
  end
  return self.buf
end

-- For each line, the queueIds whose mark sits on it.
function View:_marks()
  local marks = {}
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(self.buf, self.ns, 0, -1, {})) do
    local id, row = m[1], m[2]
    local qid = self.mark_ids and self.mark_ids[id]
    if qid then
      marks[row + 1] = marks[row + 1] or {}
      table.insert(marks[row + 1], qid)
    end
  end
  return marks
end

--- Reload from the server (after a conflict or once all edits went through).
function View:reload(message, level)
  self.o.request(protocol.request.queue_list, { sessionId = self.o.session_id }, function(err, result)
    self.writing = false
    if err then
      self.o.notify("scv: could not reload the queue: " .. protocol.error_text(err), vim.log.levels.ERROR)
      return
    end
    local st = self.o.get_state()
    st:set_queue(result.entries or {}, result.paused)
    if self:valid() then
      self:render(st.queue, st.paused)
    end
    if message then
      self.o.notify(message, level)
    end
    if self.o.on_reloaded then
      self.o.on_reloaded()
    end
  end)
end

local function op_request(op, session_id, revision)
  if op.op == "remove" then
    return protocol.request.queue_remove, { sessionId = session_id, queueId = op.queueId, revision = revision }
  elseif op.op == "update" then
    return protocol.request.queue_update,
      { sessionId = session_id, queueId = op.queueId, revision = revision, prompt = op.prompt }
  end
  return protocol.request.queue_move,
    { sessionId = session_id, queueId = op.queueId, revision = revision, beforeQueueId = op.beforeQueueId }
end

local function result_revision(op, result)
  if type(result) ~= "table" then
    return nil
  end
  if op.op == "update" then
    return result.entry and result.entry.revision
  end
  return result.revision
end

--- :w — send the buffer's edits one by one, each with its current revision.
function View:write()
  if not self:valid() or self.writing then
    return
  end
  local lines = vim.api.nvim_buf_get_lines(self.buf, 0, -1, false)
  local plan, perr = queue_edit.plan(self.base, lines, self:_marks())
  if plan == nil then
    self.o.notify("scv: queue not written: " .. perr, vim.log.levels.ERROR)
    return
  end
  if #plan.ops == 0 then
    vim.bo[self.buf].modified = false
    return
  end
  self.writing = true
  local revisions = {}
  for _, e in ipairs(self.base) do
    revisions[e.queueId] = e.revision
  end
  local total = #plan.ops
  local function step(i)
    if i > total then
      self:reload(string.format("scv: queue written (%d change%s)", total, total == 1 and "" or "s"), vim.log.levels.INFO)
      return
    end
    local op = plan.ops[i]
    local method, params = op_request(op, self.o.session_id, revisions[op.queueId])
    self.o.request(method, params, function(err, result)
      if err then
        local code = protocol.error_code(err)
        local msg
        if code == protocol.errors.queue_conflict or code == protocol.errors.queue_not_found then
          msg = string.format(
            "scv: the queue changed elsewhere (%s); buffer reloaded, %d of %d edits applied",
            code,
            i - 1,
            total
          )
        else
          msg = string.format(
            "scv: queue edit failed: %s; buffer reloaded, %d of %d edits applied",
            protocol.error_text(err),
            i - 1,
            total
          )
        end
        self:reload(msg, vim.log.levels.WARN)
        return
      end
      revisions[op.queueId] = result_revision(op, result) or revisions[op.queueId]
      step(i + 1)
    end)
  end
  step(1)
end

return M
