-- The current and proposed text of an edit waiting on approval, for a
-- native diff: write_file proposes its `content`; edit_file replaces `old`
-- with `new` (once, or everywhere with replace_all) in the current text.
-- The current text is the file's loaded buffer when there is one (what the
-- server reads too), else the file on disk.
local M = {}

M.TOOLS = { write_file = true, edit_file = true }

local function read_current(abs)
  local buf = vim.fn.bufnr("^" .. vim.fn.escape(abs, "\\^$.*~[]") .. "$")
  if buf > 0 and vim.api.nvim_buf_is_loaded(buf) then
    return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n") .. "\n"
  end
  local f = io.open(abs, "rb")
  if f == nil then
    return nil
  end
  local s = f:read("*a")
  f:close()
  return s
end

-- Plain (not pattern) replacement of the first or every occurrence.
local function replace_plain(s, old, new, all)
  local out, from = {}, 1
  while true do
    local i, j = s:find(old, from, true)
    if i == nil then
      break
    end
    out[#out + 1] = s:sub(from, i - 1)
    out[#out + 1] = new
    from = j + 1
    if not all then
      break
    end
  end
  out[#out + 1] = s:sub(from)
  return table.concat(out)
end

--- The texts of an edit approval.
---@param a table the approval (name, cwd)
---@param arguments string|nil the call's JSON arguments (scv/tool/proposed)
---@return table|nil { path, current (nil: new file), proposed }, string|nil err
function M.compute(a, arguments)
  if not M.TOOLS[a.name] then
    return nil, "not an edit"
  end
  local ok, args = pcall(vim.json.decode, arguments or "")
  if not ok or type(args) ~= "table" or type(args.path) ~= "string" then
    return nil, "the call's arguments are not known to this window"
  end
  local abs = args.path
  if abs:sub(1, 1) ~= "/" then
    abs = (a.cwd or vim.fn.getcwd()) .. "/" .. abs
  end
  local current = read_current(abs)
  if a.name == "write_file" then
    return { path = args.path, current = current, proposed = tostring(args.content or "") }
  end
  if current == nil then
    return nil, args.path .. " does not exist"
  end
  if type(args.old) ~= "string" or args.old == "" or not current:find(args.old, 1, true) then
    return nil, "the text to replace is not in " .. args.path
  end
  return {
    path = args.path,
    current = current,
    proposed = replace_plain(current, args.old, tostring(args.new or ""), args.replace_all == true),
  }
end

return M
