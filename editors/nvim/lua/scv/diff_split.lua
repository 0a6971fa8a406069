-- A native diff of two texts in a new tab page: two read-only scratch
-- buffers side by side with :diffthis. Used for a turn's changes (before ↔
-- after) and for an edit waiting on approval (current ↔ proposed).
local M = {}

local function split_text(text)
  if text == nil then
    return {}
  end
  if text:sub(-1) == "\n" then
    text = text:sub(1, -2)
  end
  return vim.split(text, "\n", { plain = true })
end
M.split_text = split_text

-- The filetype of a path: 0.8+ returns it from match({filename}); 0.7's
-- match(name, bufnr) sets it on a buffer instead, so ask with a scratch one.
local function filetype_of(path)
  if not (vim.filetype and vim.filetype.match) then
    return nil
  end
  local ok, ft = pcall(vim.filetype.match, { filename = path })
  if ok and type(ft) == "string" then
    return ft
  end
  local probe = vim.api.nvim_create_buf(false, true)
  ok = pcall(vim.filetype.match, path, probe)
  ft = ok and vim.bo[probe].filetype or ""
  vim.api.nvim_buf_delete(probe, { force = true })
  return ft ~= "" and ft or nil
end

local function scratch(name, lines, ft)
  local old = vim.fn.bufnr("^" .. vim.fn.escape(name, "\\^$.*~[]") .. "$")
  if old > 0 then
    pcall(vim.api.nvim_buf_delete, old, { force = true })
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(buf, name)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].swapfile = false
  vim.bo[buf].modifiable = false
  if ft then
    vim.bo[buf].filetype = ft
  end
  return buf
end

--- Open left ↔ right in a new tab page. Texts may be nil (the side does
--- not exist: an empty buffer).
---@param o table path (for the filetype), left = {name, text}, right = {name, text}
---@return table handle { tab, left_buf, right_buf }
function M.open(o)
  local ft = o.path and filetype_of(o.path) or nil
  vim.cmd("tabnew")
  local tab = vim.api.nvim_get_current_tabpage()
  local empty = vim.api.nvim_get_current_buf()
  local left = scratch(o.left.name, split_text(o.left.text), ft)
  vim.api.nvim_win_set_buf(0, left)
  vim.cmd("diffthis")
  vim.cmd("rightbelow vsplit")
  local right = scratch(o.right.name, split_text(o.right.text), ft)
  vim.api.nvim_win_set_buf(0, right)
  vim.cmd("diffthis")
  if vim.api.nvim_buf_is_valid(empty) and vim.api.nvim_buf_get_name(empty) == "" then
    pcall(vim.api.nvim_buf_delete, empty, { force = true })
  end
  return { tab = tab, left_buf = left, right_buf = right }
end

--- Close a diff opened by M.open (its tab page, if still open).
function M.close(handle)
  if handle == nil then
    return
  end
  if vim.api.nvim_tabpage_is_valid(handle.tab) and #vim.api.nvim_list_tabpages() > 1 then
    pcall(vim.cmd, "tabclose " .. vim.api.nvim_tabpage_get_number(handle.tab))
  end
  for _, b in ipairs({ handle.left_buf, handle.right_buf }) do
    if b and vim.api.nvim_buf_is_valid(b) then
      pcall(vim.api.nvim_buf_delete, b, { force = true })
    end
  end
end

return M
