-- The transcript buffer `scv://<session-id>`: takes the transcript model's
-- edits on a timer, so a burst of deltas becomes one buffer edit (and one
-- redraw) per interval instead of one per delta.
local compat = require("scv.compat")
local transcript = require("scv.transcript")

local M = {}

-- Tool calls fold: a header line opens a fold, its body lines stay in it.
M.FOLDEXPR = string.format(
  [[getline(v:lnum)=~#'^%s'?'>1':(getline(v:lnum)=~#'^%s'?'1':'0')]],
  transcript.TOOL_HEADER,
  transcript.TOOL_BODY
)

local View = {}
View.__index = View

local function find_buffer(name)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_valid(b) and vim.api.nvim_buf_get_name(b) == name then
      return b
    end
  end
  return nil
end

--- Options of a window that shows the transcript.
function M.setup_window(win)
  vim.wo[win].foldmethod = "expr"
  vim.wo[win].foldexpr = M.FOLDEXPR
  vim.wo[win].foldlevel = 0
  vim.wo[win].foldenable = true
  vim.wo[win].wrap = true
  vim.wo[win].linebreak = true
end

---@param o table session_id, model (transcript), interval_ms, follow, keymaps, actions
function M.new(o)
  local self = setmetatable({
    o = o,
    name = "scv://" .. o.session_id,
    buf = nil,
    timer = nil,
    scheduled = false,
    flushes = 0,
  }, View)
  self:_ensure_buffer()
  return self
end

function View:_ensure_buffer()
  if self.buf and vim.api.nvim_buf_is_valid(self.buf) then
    return self.buf
  end
  local buf = find_buffer(self.name)
  if buf == nil then
    buf = vim.api.nvim_create_buf(true, true)
    vim.api.nvim_buf_set_name(buf, self.name)
  end
  self.buf = buf
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "hide"
  vim.bo[buf].swapfile = false
  vim.bo[buf].undolevels = -1
  vim.bo[buf].filetype = "markdown"
  self.treesitter = compat.markdown_highlight(buf)
  vim.bo[buf].modifiable = false
  -- a reused or new buffer holds nothing we know of: draw it all
  self.o.model:mark_full()
  local group = vim.api.nvim_create_augroup("scv_transcript_" .. buf, { clear = true })
  vim.api.nvim_create_autocmd("BufWinEnter", {
    group = group,
    buffer = buf,
    callback = function()
      M.setup_window(vim.api.nvim_get_current_win())
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
  local km = self.o.keymaps or {}
  local actions = self.o.actions or {}
  for name, lhs in pairs(km) do
    if lhs and actions[name] then
      vim.keymap.set("n", lhs, actions[name], { buffer = buf, nowait = true, desc = "scv: " .. name })
    end
  end
  self:flush()
  return buf
end

--- Draw another session state's transcript (after a re-attach).
function View:set_model(model)
  self.o.model = model
  model:mark_full()
  self:schedule()
end

--- Ask for a flush after the interval; many calls before it cost one flush.
function View:schedule()
  if self.scheduled then
    return
  end
  self.scheduled = true
  if self.timer == nil then
    self.timer = compat.uv.new_timer()
  end
  self.timer:start(
    self.o.interval_ms,
    0,
    vim.schedule_wrap(function()
      self.scheduled = false
      self:flush()
    end)
  )
end

--- Bring the buffer up to date now.
function View:flush()
  if self.buf == nil or not vim.api.nvim_buf_is_valid(self.buf) then
    -- the buffer was wiped; it comes back (fully drawn) on the next show()
    return
  end
  local edit = self.o.model:take_edit()
  if edit == nil then
    return
  end
  self.flushes = self.flushes + 1
  local buf = self.buf
  local last = vim.api.nvim_buf_line_count(buf)
  local follow = {}
  if self.o.follow then
    for _, win in ipairs(vim.fn.win_findbuf(buf)) do
      if vim.api.nvim_win_get_cursor(win)[1] >= last then
        follow[#follow + 1] = win
      end
    end
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, edit.first, -1, false, edit.lines)
  vim.bo[buf].modifiable = false
  local count = vim.api.nvim_buf_line_count(buf)
  for _, win in ipairs(follow) do
    pcall(vim.api.nvim_win_set_cursor, win, { count, 0 })
  end
end

--- Show the transcript in a window (unless one shows it already).
---@param mode string|false "vsplit" | "split" | "tab" | "current"; false: only make sure the buffer exists
---@return integer|nil window
function View:show(mode)
  local buf = self:_ensure_buffer()
  local wins = vim.fn.win_findbuf(buf)
  if #wins > 0 then
    return wins[1]
  end
  if not mode then
    return nil
  end
  if mode == "vsplit" then
    vim.cmd("vsplit")
  elseif mode == "split" then
    vim.cmd("split")
  elseif mode == "tab" then
    vim.cmd("tabnew")
  end
  local win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(win, buf)
  M.setup_window(win)
  pcall(vim.api.nvim_win_set_cursor, win, { vim.api.nvim_buf_line_count(buf), 0 })
  return win
end

--- Stop the timer; the buffer stays for the user.
function View:dispose()
  if self.timer then
    self.timer:stop()
    self.timer:close()
    self.timer = nil
  end
  self.scheduled = false
end

return M
