-- The prompt input buffer opened by `:Scv prompt` without text: write a
-- prompt of any length, then :w (or the submit key) sends it.
local M = {}

M.NAME = "scv://prompt"
M.HEIGHT = 8

local function find()
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_valid(b) and vim.api.nvim_buf_get_name(b) == M.NAME then
      return b
    end
  end
end

--- Open (or focus) the prompt buffer.
---@param o table context table|nil, submit fun(text, context, done fun(ok)), submit_key string|false
---@return integer buffer
function M.open(o)
  local buf = find()
  if buf == nil then
    buf = vim.api.nvim_create_buf(false, false)
    vim.api.nvim_buf_set_name(buf, M.NAME)
    vim.bo[buf].buftype = "acwrite"
    vim.bo[buf].bufhidden = "wipe"
    vim.bo[buf].swapfile = false
    vim.bo[buf].filetype = "markdown"
    require("scv.compat").markdown_highlight(buf)
  end
  local function submit()
    local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
    if not text:match("%S") then
      vim.notify("scv: the prompt is empty", vim.log.levels.WARN)
      return
    end
    -- the latest :Scv prompt decides the context (its handlers replace these)
    o.submit(text, o.context, function(ok)
      if ok and vim.api.nvim_buf_is_valid(buf) then
        vim.bo[buf].modified = false
        for _, w in ipairs(vim.fn.win_findbuf(buf)) do
          pcall(vim.api.nvim_win_close, w, true)
        end
        if vim.api.nvim_buf_is_valid(buf) then
          vim.api.nvim_buf_delete(buf, { force = true })
        end
      end
    end)
  end
  local group = vim.api.nvim_create_augroup("scv_prompt_" .. buf, { clear = true })
  vim.api.nvim_create_autocmd("BufWriteCmd", { group = group, buffer = buf, callback = submit })
  if o.submit_key then
    vim.keymap.set({ "n", "i" }, o.submit_key, submit, { buffer = buf, desc = "scv: send the prompt" })
  end
  if #vim.fn.win_findbuf(buf) == 0 then
    vim.cmd(string.format("botright %dsplit", M.HEIGHT))
    vim.api.nvim_win_set_buf(0, buf)
  else
    vim.api.nvim_set_current_win(vim.fn.win_findbuf(buf)[1])
  end
  return buf
end

return M
