-- The few editor APIs that differ between Neovim 0.7 and current releases,
-- chosen by feature detection rather than by version where possible.
local M = {}

M.uv = vim.uv or vim.loop

-- Neovim 0.11 made client methods colon-called (client:request); earlier
-- releases call them with a dot.
local colon_methods = vim.fn.has("nvim-0.11") == 1

--- Call a method of an LSP client object.
function M.call(client, method, ...)
  if colon_methods then
    return client[method](client, ...)
  end
  return client[method](...)
end

--- Start an LSP client that is attached to no buffer for text features.
--- vim.lsp.start exists from 0.8 and honours attach = false from 0.11. Where
--- it attaches anyway it gets a hidden scratch buffer of ours (`anchor`),
--- made current for the call because 0.8.0 attaches to the current buffer
--- whatever opts.bufnr says; so no user buffer ever talks to scv.
---@param config table
---@param anchor function returns the scratch buffer
---@return integer|nil client_id
function M.start_client(config, anchor)
  if type(vim.lsp.start) == "function" then
    local buf = anchor()
    return vim.api.nvim_buf_call(buf, function()
      return vim.lsp.start(config, {
        attach = false,
        bufnr = buf,
        reuse_client = function()
          return false
        end,
      })
    end)
  end
  return vim.lsp.start_client(config)
end

--- Length of a line in UTF-16 code units (LSP's default position unit).
--- 0.11 takes the encoding as an argument; earlier releases return both
--- the UTF-32 and the UTF-16 index.
function M.utf16_len(line)
  if colon_methods then
    return vim.str_utfindex(line, "utf-16")
  end
  local _, u16 = vim.str_utfindex(line)
  return u16
end

--- Highlight a Markdown buffer with tree-sitter where this Neovim has
--- vim.treesitter.start (0.9+) and a markdown parser; else the regex syntax
--- of filetype markdown stays. Returns whether tree-sitter took it.
function M.markdown_highlight(buf)
  if not (vim.treesitter and vim.treesitter.start) then
    return false
  end
  return (pcall(vim.treesitter.start, buf, "markdown"))
end

--- The health reporting functions of this release.
function M.health()
  local h = vim.health
  if h == nil or (h.start == nil and h.report_start == nil) then
    h = require("health")
  end
  return {
    start = h.start or h.report_start,
    ok = h.ok or h.report_ok,
    warn = h.warn or h.report_warn,
    error = h.error or h.report_error,
    info = h.info or h.report_info,
  }
end

return M
