-- The plugin's own log: a bounded list of lines shown by :Scv log (server
-- messages, errors, lifecycle). Never holds prompts or secrets beyond what
-- the server itself reported.
local M = {}

local Log = {}
Log.__index = Log

---@param max_lines integer
function M.new(max_lines)
  return setmetatable({ max = max_lines, entries = {}, first = 1, buf = nil }, Log)
end

function Log:add(level, msg)
  local line = string.format("%s %-5s %s", os.date("%H:%M:%S"), level, (tostring(msg):gsub("\n", " ⏎ ")))
  self.entries[#self.entries + 1] = line
  if #self.entries - self.first + 1 > self.max then
    self.entries[self.first] = nil
    self.first = self.first + 1
  end
  if self.buf and vim.api.nvim_buf_is_valid(self.buf) then
    vim.bo[self.buf].modifiable = true
    vim.api.nvim_buf_set_lines(self.buf, -1, -1, false, { line })
    vim.bo[self.buf].modifiable = false
  end
end

function Log:lines()
  local out = {}
  for i = self.first, #self.entries do
    out[#out + 1] = self.entries[i]
  end
  return out
end

--- Show the log in a split; it grows while it stays open.
function Log:show(header)
  if not (self.buf and vim.api.nvim_buf_is_valid(self.buf)) then
    self.buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(self.buf, "scv://log")
  end
  local lines = vim.list_extend(vim.deepcopy(header or {}), self:lines())
  vim.bo[self.buf].modifiable = true
  vim.api.nvim_buf_set_lines(self.buf, 0, -1, false, lines)
  vim.bo[self.buf].modifiable = false
  if #vim.fn.win_findbuf(self.buf) == 0 then
    vim.cmd("split")
    vim.api.nvim_win_set_buf(0, self.buf)
  end
  return self.buf
end

return M
